/**
 * Cross-play for Evaluation's heat map: every DA checkpoint against every CA checkpoint on the
 * arena scenarios, per-scenario DA win rates. Nothing is stored as a match (these are analyses,
 * not arena history); the engine caches answers per arguments, since checkpoints never change
 * under a name.
 */
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import { runMatch, summarise } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import type { SparringConfig } from '../../core/config';
import type { CrossPlay, CrossPlayArgs, CrossPlayCell } from '../../core/contract/contract';
import type { Domain } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import { resolveCa, resolveDa } from '../policies/policies';
import { disposeModel } from './replay';

export interface CrossPlayDeps {
  db: string;
  domain: Domain;
  wrap?: <P extends DaPolicy | CaPolicy>(p: P) => P;
  /** Episodes done of the whole cross-play. */
  onProgress?: (done: number, total: number) => void;
}

export async function crossPlay(args: CrossPlayArgs, deps: CrossPlayDeps): Promise<CrossPlay> {
  const scenarios = selectScenarios(deps.domain, 'arena');
  const config: SparringConfig = withEpisodes(DEFAULT_CONFIG, args.episodesPerScenario);
  const g = { db: deps.db, seed: args.seed };
  const wrap = deps.wrap ?? (<P>(p: P) => p);
  const perPair = scenarios.length * args.episodesPerScenario;
  const total = args.das.length * args.cas.length * perPair;
  const loaded: (DaPolicy | CaPolicy)[] = [];
  try {
    // Load every policy first, so a bad name fails before any episode is played.
    const das: DaPolicy[] = [];
    for (const spec of args.das) loaded.push((das[das.length] = await resolveDa(spec, deps.domain, g)));
    const cas: CaPolicy[] = [];
    for (const spec of args.cas) loaded.push((cas[cas.length] = await resolveCa(spec, deps.domain, g)));
    const cells: CrossPlayCell[] = [];
    const pairs: CrossPlay['pairs'] = [];
    let before = 0;
    for (const [i, da] of das.entries()) {
      for (const [j, ca] of cas.entries()) {
        const { episodes } = await runMatch({
          matchId: `xp-${args.das[i]}-${args.cas[j]}`,
          createdAt: '',
          domain: deps.domain,
          scenarios,
          scenarioSet: 'arena',
          da: wrap(da),
          ca: wrap(ca),
          judge: judgeEpisode,
          config,
          seed: args.seed,
          concurrency: 32,
          onProgress: (done) => deps.onProgress?.(before + done, total),
        });
        before += perPair;
        const { perScenario, wDa } = summarise(scenarios, episodes);
        pairs.push({ da: args.das[i]!, ca: args.cas[j]!, wDa });
        for (const s of perScenario) cells.push({ da: args.das[i]!, ca: args.cas[j]!, ...s });
      }
    }
    return {
      ...args,
      daCheckpoints: das.map((p) => p.checkpoint ?? null),
      caCheckpoints: cas.map((p) => p.checkpoint ?? null),
      scenarios: scenarios.map((s) => ({ id: s.id, fraudReference: s.fraudReference })),
      cells,
      pairs,
      cached: false,
    };
  } finally {
    for (const p of loaded) await disposeModel(p);
  }
}
