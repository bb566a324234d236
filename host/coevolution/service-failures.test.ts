/**
 * A run whose lab stops taking writes (a full disk: SQLITE_FULL) ends as failed, and `settled`
 * answers, rather than waiting forever. The write that fails is the run's own snapshot at a phase
 * boundary, made from the actor's subscriber: an exception there used to be reported as an
 * unhandled error and the run's `finished` promise never settled (a CI run waited 900 s on it).
 * The failure is planted with a real SQLite trigger that refuses the write.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import { createRunService } from './service';

const CONFIG = JSON.stringify({ ...PRESETS.smoke.config, stopping: { ...PRESETS.smoke.config.stopping, nMin: 2, nMax: 2 } });
const PLANTED = 'database or disk is full (planted)';

describe('a run whose lab refuses a write', () => {
  it('fails visibly, and settled answers', { timeout: 120_000 }, async () => {
    const dbPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-failures-')), 'lab.db');
    const service = createRunService({ dbPath });
    try {
      // After the first match is stored, the run's snapshot can be written only as failed.
      service.store.db.exec(`CREATE TRIGGER refuse BEFORE UPDATE OF snapshot_json ON runs
        WHEN NEW.status <> 'failed' AND (SELECT COUNT(*) FROM matches) > 0
        BEGIN SELECT RAISE(ABORT, '${PLANTED}'); END`);
      const { runId } = await service.start({ preset: 'custom', configJson: CONFIG, seed: 4 });
      const d = await service.settled(runId);
      expect(d.status).toBe('failed');
      expect(d.error).toContain(PLANTED);
      expect(() => service.pause(runId)).toThrow(/not running/);
    } finally {
      await service.close();
    }
  });

  it('rejects settled, naming both failures, when even the failure cannot be written', { timeout: 120_000 }, async () => {
    const dbPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-failures-')), 'lab.db');
    const service = createRunService({ dbPath });
    try {
      service.store.db.exec(`CREATE TRIGGER refuse BEFORE UPDATE OF snapshot_json ON runs
        WHEN (SELECT COUNT(*) FROM matches) > 0
        BEGIN SELECT RAISE(ABORT, '${PLANTED}'); END`);
      const { runId } = await service.start({ preset: 'custom', configJson: CONFIG, seed: 4 });
      await expect(service.settled(runId)).rejects.toThrow(new RegExp(`run ${runId} failed.*${PLANTED.replace(/[()]/g, '\\$&')}`));
    } finally {
      await service.close();
    }
  });
});
