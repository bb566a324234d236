import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { runMatch } from '../../core/arena/match';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import type { ModelSnapshot } from '../../core/rl/ports';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { checkpointStore } from '../store/checkpoint-store';
import { playStore } from '../store/play-store';
import { openSqliteStore } from '../store/sqlite-store';
import { evaluatePanel, labPanelInputs, PanelMemo, panelStore } from './panel-eval';

const root = mkdtempSync(join(tmpdir(), 'sparring-panel-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const domain = bankingDomain();
const toy: ModelSnapshot = { modelJson: '{"kind":"toy"}', weights: new Uint8Array(4), optimiser: null };

describe('the panel of a DA in a lab', () => {
  it("takes other runs' final CAs, never one of the DA's run lineage, and the DA's own run's final CA as its training counterpart", () => {
    const lab = openSqliteStore(join(root, 'lineage.sqlite'));
    const run = lab.db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES (?, 't', 't', ?, 1, '{}')");
    run.run('R1', 'finished');
    run.run('R2', 'finished');
    run.run('R3', 'finished');
    run.run('R4', 'running');
    const cps = checkpointStore(lab.db);
    let t = 0;
    const save = (role: 'DA' | 'CA', name: string, runId: string, parent: string | null = null) =>
      cps.save({
        role,
        name,
        runId,
        parent,
        source: parent ? 'gym' : 'bootstrap',
        snapshot: toy,
        createdAt: `2026-01-01T00:00:${String(++t).padStart(2, '0')}Z`,
      });
    save('DA', 'DA0', 'R1');
    save('CA', 'CA0', 'R1');
    save('CA', 'CA1', 'R1', 'CA0');
    save('DA', 'DA1', 'R1', 'DA0');
    save('CA', 'CA2', 'R2');
    // R3 continued from R1's CA: it shares R1's lineage.
    save('CA', 'CA3', 'R3', 'CA1');
    // R4 has not finished: its latest CA is not final.
    save('CA', 'CA4', 'R4');
    const x = labPanelInputs(lab.db, 'DA1');
    expect(x.da).toBe('DA1');
    expect(x.daRun).toBe('R1');
    expect(x.trainingCa).toBe('CA1');
    expect(x.training.lineageRuns).toEqual(['R1']);
    expect(x.candidates.runCas).toEqual([
      { name: 'CA1', runId: 'R1', lineageRuns: ['R1'] },
      { name: 'CA2', runId: 'R2', lineageRuns: ['R2'] },
      { name: 'CA3', runId: 'R3', lineageRuns: ['R3', 'R1'] },
    ]);
    // Only runs a study names, when it names them.
    expect(labPanelInputs(lab.db, 'DA1', ['R2']).candidates.runCas.map((c) => c.name)).toEqual(['CA2']);
    lab.close();
  });

  it('evaluates each counterpart once: a second call reuses the stored results; human episodes are replayed', async () => {
    const path = join(root, 'reuse.sqlite');
    const lab = openSqliteStore(path);
    // A person's customer episode (here played by the scripted CA and stored as Play stores one).
    const scenario = domain.scenarios.find((s) => s.set === 'heldout')!;
    const m = await runMatch({
      matchId: 'H1',
      createdAt: 't',
      domain,
      scenarios: [scenario],
      scenarioSet: 'human',
      da: new ScriptedDa(),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: withEpisodes(DEFAULT_CONFIG, 1),
      seed: 5,
    });
    playStore(lab).finish('P-1', m.match, m.episodes[0]!, {
      episodeId: 'H1:0',
      player: 'ana',
      seat: 'customer',
      opponent: 'scripted',
      playedAt: 't',
      forkedFrom: null,
    });
    lab.close();

    const opts = { db: path, domain, da: 'scripted', panel: ['scripted', 'human'], protocol: { seeds: [1], episodesPerScenario: 1 } };
    const first = await evaluatePanel(opts);
    expect(first.computed).toBe(2);
    expect(first.reused).toBe(0);
    expect(first.trainingCounterpart).toBeNull();
    expect(first.summary.gap).toBeNull();
    const heldout = domain.scenarios.filter((s) => s.set === 'heldout').length;
    expect(first.summary.rows.map((r) => [r.counterpart.key, r.episodes])).toEqual([
      ['scripted', heldout],
      ['human:H1:0', 1],
    ]);
    const human = first.summary.rows[1]!;
    // The scripted DA says what the recorded (scripted) DA said: every human turn is replayed.
    expect(human.replay!.episodes).toBe(1);
    expect(human.replay!.replayedTurns).toBe(human.replay!.humanTurns);
    expect(human.cells.routing.value).toBe(m.episodes[0]!.winner === 'DA' ? 1 : 0);
    expect(first.summary.average.routing.n).toBe(2);

    const second = await evaluatePanel(opts);
    expect(second.computed).toBe(0);
    expect(second.reused).toBe(2);
    expect(second.summary).toEqual(first.summary);
    const again = openSqliteStore(path);
    expect(panelStore(again.db).get('scripted', 'scripted', 'seeds=1;episodes=1')!.heldout.episodes).toBe(heldout);
    // Another protocol is another result.
    expect(panelStore(again.db).get('scripted', 'scripted', 'seeds=1,2;episodes=1')).toBeNull();
    again.close();
  });

  it('takes the figures of a pair whose weights equal a pair already evaluated (PanelMemo), and they equal a fresh evaluation', async () => {
    const path = join(root, 'twins.sqlite');
    const lab = openSqliteStore(path);
    const run = lab.db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES (?, 't', 't', 'finished', 1, '{}')");
    for (const id of ['R1', 'R2', 'R3']) run.run(id);
    const intents = domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool }));
    const [da, ca, other] = await Promise.all([
      DaModel.create({ intents, seed: 3 }),
      CaModel.create(domain.taxonomy, { seed: 4 }),
      CaModel.create(domain.taxonomy, { seed: 5 }),
    ]);
    const cps = checkpointStore(lab.db);
    let t = 0;
    const save = async (role: 'DA' | 'CA', name: string, runId: string, model: { snapshot(): Promise<ModelSnapshot> }) =>
      cps.save({
        role,
        name,
        runId,
        parent: null,
        source: 'bootstrap',
        snapshot: await model.snapshot(),
        createdAt: `2026-01-01T00:00:${String(++t).padStart(2, '0')}Z`,
      });
    // R1 and R2 hold copies of one DA and one CA (as a study's arms of a seed do); R3 another CA.
    await save('DA', 'DA0', 'R1', da);
    await save('CA', 'CA0', 'R1', ca);
    await save('DA', 'DA1', 'R2', da);
    await save('CA', 'CA1', 'R2', ca);
    await save('CA', 'CA2', 'R3', other);
    lab.close();
    await Promise.all([da.dispose(), ca.dispose(), other.dispose()]);
    const fresh = join(root, 'twins-fresh.sqlite');
    copyFileSync(path, fresh);

    const protocol = { seeds: [1], episodesPerScenario: 1 };
    const memo = new PanelMemo();
    try {
      const first = await evaluatePanel({ db: path, domain, da: 'DA0', panel: 'auto', protocol, memo });
      // DA0's panel: scripted, R2's CA1, R3's CA2; its training counterpart R1's CA0 (the same weights as CA1).
      expect([first.computed, first.reused]).toEqual([3, 1]);
      const second = await evaluatePanel({ db: path, domain, da: 'DA1', panel: 'auto', protocol, memo });
      expect([second.computed, second.reused]).toEqual([0, 4]);
      // In a lab of its own, DA1's figures are played from DA1 itself (its CA0 pair still takes CA1's).
      const alone = await evaluatePanel({ db: fresh, domain, da: 'DA1', panel: 'auto', protocol });
      expect([alone.computed, alone.reused]).toEqual([3, 1]);
      expect(second.summary).toEqual(alone.summary);
    } finally {
      await memo.dispose();
    }
  });
});
