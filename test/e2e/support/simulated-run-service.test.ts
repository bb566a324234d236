/**
 * The simulated runner the dashboard specs start runs on: a run of each preset they start ends
 * 'finished'. (Quick's five matches gave it five DA checkpoints, and its made-up held-out counts
 * went past their episodes: the run failed in its evaluation with "wilsonInterval: 25 successes
 * of 24 trials".)
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulatedRunService } from './simulated-run-service';

async function ended(preset: string) {
  const db = path.join(mkdtempSync(path.join(os.tmpdir(), 'sim-runner-')), 'lab.db');
  const service = simulatedRunService(db, { gymSteps: 2, stepMs: 1 });
  const { runId } = await service.start({ preset });
  for (let i = 0; i < 600 && service.get(runId).live; i++) await new Promise((r) => setTimeout(r, 50));
  return service.get(runId);
}

describe('simulatedRunService', () => {
  it.each(['quick', 'smoke'])('a %s run ends finished, with its held-out evaluation', async (preset) => {
    const d = await ended(preset);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'finished', error: null });
    expect(d.heldout).not.toBeNull();
  });
});
