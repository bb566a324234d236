/**
 * The EAU wiring of a run's match actor: the diagnostics run after the match on what it played,
 * their proposals go to ctx.recordProposals (never applied), and the symbolic-user mix ε decides
 * each episode's customer, recorded with the episode and summarised per arm.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import { customerArm } from '../../core/eau/customer-mix';
import type { KnobProposal } from '../../core/eau/proposal';
import { CAMOUFLAGED_CA_STYLE, ScriptedCa } from '../../core/agents/scripted-ca';
import type { DaPolicy } from '../../core/agents/policy';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { judgeEpisode } from '../../core/judge/judge';
import { PolicyCache, playMatch } from '../coevolution/actors';
import type { LabContext } from '../coevolution/lab-context';
import { bankingDomain } from '../domain-files';
import { checkpointStore } from '../store/checkpoint-store';
import { openSqliteStore } from '../store/sqlite-store';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-eau-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const domain = bankingDomain();

describe('a run match with a planted deadlock and ε = 0.5', () => {
  it('records a deadlock proposal for arena.maxDaTurns and W_DA per customer arm', async () => {
    const store = openSqliteStore(path.join(tmp, 'lab.db'));
    const checkpoints = checkpointStore(store.db);
    const quick = PRESETS.quick.config;
    const config: RunConfig = { ...quick, arena: { episodesPerScenario: 2, maxDaTurns: 1 }, customer: { symbolicMix: 0.5 } };
    // A DA that verifies first, as a trained one does: with one DA turn it never reaches a domain tool.
    const lookupFirst: DaPolicy = {
      name: 'lookup-first',
      act: () => JSON.stringify({ thinking: 'verify first', action_type: 'tool_call', content: 'lookup_account', tool_args: {} }),
    };
    // The match as the run's match actor stores it (a resumed run finds it and goes on from there).
    const played = await runMatch({
      matchId: 'R1-M1',
      createdAt: '2026-03-01T00:00:00.000Z',
      domain,
      scenarios: selectScenarios(domain, 'arena'),
      scenarioSet: 'arena',
      da: lookupFirst,
      ca: new ScriptedCa(domain, CAMOUFLAGED_CA_STYLE),
      judge: judgeEpisode,
      config: sparringConfigOf(config),
      seed: 1,
      symbolic: { ca: new ScriptedCa(domain), mix: 0.5 },
    });
    store.saveMatch(played.match, played.episodes);
    const recorded: { runId: string; proposals: readonly KnobProposal[] }[] = [];
    const ctx: LabContext = {
      runId: 'R1',
      seed: 1,
      domain,
      config,
      sparring: sparringConfigOf(config),
      store,
      checkpoints,
      progress: () => {},
      metric: () => {},
      stopped: () => false,
      recordProposals: (runId, proposals) => recorded.push({ runId, proposals }),
    };
    const cache = new PolicyCache(ctx);
    try {
      const out = await playMatch(ctx, cache, { runId: 'R1', index: 1, da: 'DA0', ca: 'scripted', seed: 1 });
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.runId).toBe('R1');
      const deadlock = recorded[0]!.proposals.find((p) => p.source.kind === 'diagnostic' && p.source.name === 'deadlock');
      expect(deadlock?.knob).toBe('arena.maxDaTurns');
      expect(deadlock?.value).toBe(3);
      expect(deadlock?.evidence.figures.deadlockRate).toBe(1);
      expect(deadlock?.evidence.episodes[0]).toBe('R1-M1:0');

      const episodes = store.listEpisodes({ matchId: 'R1-M1', limit: 100 });
      expect(episodes).toHaveLength(20);
      for (const e of episodes) expect(e.customer).toBe(customerArm(e.seed, 0.5));
      expect(out.arms!.symbolic.episodes).toBe(episodes.filter((e) => e.customer === 'symbolic').length);
      expect(out.arms!.symbolic.episodes).toBeGreaterThan(0);
      expect(out.arms!.symbolic.episodes + out.arms!.learned.episodes).toBe(20);
    } finally {
      await cache.dispose();
      store.close();
    }
  });
});
