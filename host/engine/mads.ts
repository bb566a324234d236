/**
 * MADS in the app (issue 7): the four validators' verdicts on a stored episode, and L-1/L-2 of a
 * DA on the robustness scenarios (shipped and custom), run on request with throttled progress.
 */
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import type { Handlers } from '../../core/contract/contract';
import type { EngineEvent } from '../../core/contract/run-service';
import { evaluateMads } from '../../core/arena/evaluate';
import { DEFAULT_CONFIG } from '../../core/config';
import type { Domain } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import type { RunStore } from '../../core/store/port';
import { transcriptOfEpisode, validateTranscript } from '../../core/validators/validators';
import { resolveCa, resolveDa } from '../policies/policies';
import { throttledProgress } from './progress';

/** Progress events of `eval/mads` at most this often (the last one always goes out). */
const PROGRESS_EVERY_MS = 250;

export interface MadsHandlerDeps {
  store: Pick<RunStore, 'getEpisode'>;
  dbPath: string;
  domain: () => Domain;
  emit: (e: EngineEvent) => void;
  /** Wraps a policy so a long evaluation yields to the event loop (the engine's `yielding`). */
  yielding: <P extends DaPolicy | CaPolicy>(p: P) => P;
  release: (p: DaPolicy | CaPolicy) => Promise<void>;
}

export function madsHandlers(d: MadsHandlerDeps): Pick<Handlers, 'episodes/validate' | 'eval/mads'> {
  let running = false;
  return {
    'episodes/validate': ({ id }) => {
      const e = d.store.getEpisode(id);
      if (!e) throw new Error(`episodes/validate: no episode "${id}" in this lab`);
      const scenario = d.domain().scenarios.find((s) => s.id === e.scenarioId);
      return validateTranscript(transcriptOfEpisode(e, scenario), scenario);
    },

    'eval/mads': async ({ da, ca, episodesPerScenario, seed }) => {
      if (running) throw new Error('eval/mads: an evaluation is already running; wait for it to finish');
      running = true;
      const domain = d.domain();
      const g = { db: d.dbPath, seed };
      try {
        const daPolicy = await resolveDa(da, domain, g);
        try {
          const caPolicy = await resolveCa(ca, domain, g);
          try {
            const report = await evaluateMads({
              domain,
              da: d.yielding(daPolicy),
              ca: d.yielding(caPolicy),
              judge: judgeEpisode,
              config: DEFAULT_CONFIG,
              seeds: [seed],
              episodesPerScenario,
              onProgress: throttledProgress(PROGRESS_EVERY_MS, (done, total) => d.emit({ name: 'eval/progress', payload: { done, total } })),
            });
            return {
              ...report,
              da: daPolicy.name,
              ca: caPolicy.name,
              daCheckpoint: daPolicy.checkpoint ?? null,
              caCheckpoint: caPolicy.checkpoint ?? null,
              seed,
              episodesPerScenario,
            };
          } finally {
            await d.release(caPolicy);
          }
        } finally {
          await d.release(daPolicy);
        }
      } finally {
        running = false;
      }
    },
  };
}
