/**
 * A co-evolution run whose CA is an LLM (issue 14, item 7), with `serve-model` serving a builtin
 * CA checkpoint as that LLM (no network): the run has no CA0, plays every match and the held-out
 * evaluation against the endpoint, records the calls with the matches, skips the CA's gyms and
 * says so in its stopping verdict (which the dashboard and the report show).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetStop, planGyms } from '../../core/coevolution/run.machine';
import { PRESETS } from '../../core/presets';
import { BuiltinCa } from '../../models/builtin-ca';
import { CaModel } from '../../models/ca-model';
import { bankingDomain } from '../domain-files';
import { serveModel } from '../llm/serve-model';
import type { ServedModel } from '../llm/serve-model';
import { checkpointStore } from '../store/checkpoint-store';
import { llmStore } from '../store/llm-store';
import { openSqliteStore } from '../store/sqlite-store';
import { createRunService } from './service';

const SKIPPED = 'CA gyms skipped: the CA is an LLM (cust) and no external trainer is attached';

describe('a schedule with LLM roles', () => {
  const rule = { stop: false, reason: null, explanation: 'continue after match 1', t: 1 } as unknown as Parameters<typeof budgetStop>[0];
  it('plans no gym for a role an LLM plays, and says why', () => {
    expect(planGyms({ role: 'CA', daShortfall: 0, caShortfall: 1, explanation: '' }, { llm: { ca: 'cust' } }, 0)).toEqual({ gyms: [], note: SKIPPED });
    expect(planGyms({ role: 'DA', daShortfall: 1, caShortfall: 0, explanation: '' }, { llm: { ca: 'cust' } }, 0)).toEqual({ gyms: ['DA'], note: null });
    expect(planGyms({ role: 'DA', daShortfall: 1, caShortfall: 0, explanation: '' }, { isolation: 'both', llm: { da: 'q' } }, 0).gyms).toEqual(['CA']);
  });
  it('names the LLM roles in the stopping verdict; a fixed DA budget yields to the rule when the DA is an LLM', () => {
    expect(budgetStop(rule, { llm: { ca: 'cust' } }, 0).explanation).toBe(`continue after match 1 (${SKIPPED})`);
    expect(budgetStop(rule, { daGyms: 0 }, 0).stop).toBe(true);
    expect(budgetStop(rule, { daGyms: 0, llm: { da: 'q' } }, 0).stop).toBe(false);
  });
});

describe('a run whose CA is an LLM (serve-model)', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-llm-run-'));
  const db = path.join(tmp, 'lab.db');
  const domain = bankingDomain();
  let model: CaModel;
  let served: ServedModel;

  beforeAll(async () => {
    model = await CaModel.create(domain.taxonomy, { seed: 8 });
    served = await serveModel({ ca: new BuiltinCa(model, domain.bank, { name: 'CA-served' }), modelId: 'CA-served', token: null });
    const store = openSqliteStore(db);
    llmStore(store.db).addEndpoint({ name: 'cust', baseUrl: served.baseUrl, model: 'CA-served', apiKeyEnv: null, toolCalls: 'text', maxConcurrency: 8 });
    store.close();
  }, 60_000);
  afterAll(async () => {
    await served.close();
    await model.dispose();
  });

  it('plays its matches and evaluation with the LLM, trains no CA and says so', async () => {
    // τ_DA 0 and r_CA 1: after a match the DA wins any of, the CA is the weaker agent — whose gym is skipped.
    const q = PRESETS.smoke.config;
    const config = { ...q, stopping: { ...q.stopping, nMin: 2, nMax: 2, tauDa: 0, rCa: 1 }, schedule: { llm: { ca: 'cust' } } };
    const service = createRunService({ dbPath: db });
    try {
      const { runId } = await service.start({ preset: 'custom', configJson: JSON.stringify(config), seed: 3 });
      const d = await service.settled(runId);
      expect(d.status, d.error ?? '').toBe('finished');
      expect(d.matchSummaries.length).toBe(2);
      expect(d.matchSummaries.every((m) => m.ca === 'cust')).toBe(true);
      expect(d.matchSummaries[0]!.wDa).toBeGreaterThan(0);
      expect(d.matchSummaries[0]!.gyms).toEqual([]);
      expect(d.matchSummaries[0]!.scheduleNote).toBe(SKIPPED);
      expect(d.matchSummaries.at(-1)!.stop.explanation).toContain(SKIPPED);
      expect(d.gyms.filter((g) => g.role === 'CA')).toEqual([]);

      const store = openSqliteStore(db);
      try {
        expect(checkpointStore(store.db).list('CA')).toEqual([]); // no CA0
        const calls = store.db.prepare("SELECT COUNT(*) AS n, SUM(role = 'CA') AS ca FROM llm_calls WHERE episode_id LIKE ?").get(`${runId}-M%`) as {
          n: number;
          ca: number;
        };
        const customerTurns = store.db
          .prepare("SELECT COUNT(*) AS n FROM turns WHERE role = 'customer' AND episode_id IN (SELECT id FROM episodes WHERE match_id LIKE ?)")
          .get(`${runId}-M%`) as { n: number };
        expect(calls.n).toBe(customerTurns.n);
        expect(calls.ca).toBe(calls.n);
        // The held-out evaluation played the LLM too, and its calls were recorded.
        const evalCalls = store.db.prepare('SELECT COUNT(*) AS n FROM llm_calls WHERE episode_id NOT LIKE ?').get(`${runId}-M%`) as { n: number };
        expect(evalCalls.n).toBeGreaterThan(0);
      } finally {
        store.close();
      }
      expect(served.stats.completions).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  }, 600_000);

  it('asks the endpoint again with llmCache false (`run --no-cache`), where the same run is otherwise answered from the lab cache', async () => {
    const q = PRESETS.smoke.config;
    const config = { ...q, stopping: { ...q.stopping, nMin: 1, nMax: 1, tauDa: 0, rCa: 1 }, schedule: { llm: { ca: 'cust' } } };
    const callsOf = async (llmCache: boolean) => {
      const before = served.stats.completions;
      const service = createRunService({ dbPath: db, ...(llmCache ? {} : { llmCache }) });
      try {
        const { runId } = await service.start({ preset: 'custom', configJson: JSON.stringify(config), seed: 5 });
        expect((await service.settled(runId)).status).toBe('finished');
        const store = openSqliteStore(db);
        try {
          const calls = store.db
            .prepare("SELECT COUNT(*) AS n, SUM(cached) AS cached FROM llm_calls WHERE episode_id LIKE ? AND role = 'CA'")
            .get(`${runId}-M%`) as {
            n: number;
            cached: number;
          };
          return { ...calls, asked: served.stats.completions - before };
        } finally {
          store.close();
        }
      } finally {
        await service.close();
      }
    };
    const first = await callsOf(true);
    expect(first.n).toBeGreaterThan(0);
    // The same seed and config again: every request is the first run's, so the cache answers all of them.
    const again = await callsOf(true);
    expect([again.n, again.cached]).toEqual([first.n, first.n]);
    const fresh = await callsOf(false);
    expect([fresh.n, fresh.cached]).toEqual([first.n, 0]);
    expect(fresh.asked).toBeGreaterThanOrEqual(first.n);
  }, 900_000);
});
