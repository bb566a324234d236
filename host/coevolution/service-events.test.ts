/**
 * A run's events describe what the lab already holds: a reader that reacts to `run/match` or
 * `run/gym` by reading the run from the lab (the app reloads it after a gym an external trainer
 * ended) finds that match or gym in the stored snapshot. The snapshot used to be written after
 * the events, and the app's reload could read the phase before and drop the gym from the view.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import { createRunService } from './service';

/** quick with two matches, so one gym. */
const CONFIG = JSON.stringify({ ...PRESETS.smoke.config, stopping: { ...PRESETS.smoke.config.stopping, nMin: 2, nMax: 2 } });

describe('run events', () => {
  it('are emitted once the lab holds what they announce', { timeout: 240_000 }, async () => {
    const dbPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-events-')), 'lab.db');
    const service = createRunService({ dbPath });
    const stored = (runId: string) => {
      const json = service.store.db.prepare('SELECT snapshot_json FROM runs WHERE id = ?').pluck().get(runId) as string | null;
      return json ? (JSON.parse(json) as { context: { matches: { matchId: string }[]; gyms: { to: string }[] } }).context : { matches: [], gyms: [] };
    };
    const seen: string[] = [];
    service.subscribe((e) => {
      // Read at the moment the event is delivered, as a listener on another connection would.
      if (e.name === 'run/match')
        seen.push(`match ${e.payload.match.matchId}: ${stored(e.payload.runId).matches.some((m) => m.matchId === e.payload.match.matchId)}`);
      if (e.name === 'run/gym') seen.push(`gym ${e.payload.gym.to}: ${stored(e.payload.runId).gyms.some((g) => g.to === e.payload.gym.to)}`);
    });
    try {
      const { runId } = await service.start({ preset: 'custom', configJson: CONFIG, seed: 4 });
      const d = await service.settled(runId);
      expect(d.status, d.error ?? '').toBe('finished');
      expect(seen).toHaveLength(3); // two matches, one gym
      expect(seen.filter((s) => s.endsWith(': false'))).toEqual([]);
    } finally {
      await service.close();
    }
  });
});
