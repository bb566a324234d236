/**
 * Replays one scenario and seed with two policies of the same role against the same opponent and
 * says where the episodes part ways (`episodes/diff`, `sparring diff`). The episode seed fixes the
 * world and every random stream, so the opponent behaves the same until the policies differ.
 */
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import { diffEpisodes } from '../../core/arena/episode-diff';
import { runEpisode } from '../../core/arena/match';
import { DEFAULT_CONFIG } from '../../core/config';
import type { DiffArgs, EpisodeDiff } from '../../core/contract/contract';
import type { Domain } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import { resolveCa, resolveDa } from '../policies/policies';
import type { SessionSettings } from '../../models/session';

export interface ReplayDeps {
  db: string;
  domain: Domain;
  /** Wraps each policy before it plays (the engine makes them yield to its event loop). */
  wrap?: <P extends DaPolicy | CaPolicy>(p: P) => P;
  /** Where the policies run (`sparring diff --provider`, `sparring serve --provider`); default the CPU. */
  session?: SessionSettings;
}

export async function replayPair(args: DiffArgs, deps: ReplayDeps): Promise<EpisodeDiff> {
  const scenario = deps.domain.scenarios.find((s) => s.id === args.scenarioId);
  if (!scenario) throw new Error(`diff: no scenario "${args.scenarioId}"; known: ${deps.domain.scenarios.map((s) => s.id).join(', ')}`);
  const g = { db: deps.db, seed: args.seed, ...(deps.session ? { session: deps.session } : {}) };
  const wrap = deps.wrap ?? (<P>(p: P) => p);
  const play = async (spec: string, index: number) => {
    const da = await resolveDa(args.role === 'DA' ? spec : args.opponent, deps.domain, g);
    let ca: CaPolicy | null = null;
    try {
      ca = await resolveCa(args.role === 'CA' ? spec : args.opponent, deps.domain, g);
      const out = await runEpisode({
        domain: deps.domain,
        scenario,
        seed: args.seed,
        da: wrap(da),
        ca: wrap(ca),
        judge: judgeEpisode,
        config: DEFAULT_CONFIG,
        matchId: `diff-${spec}`,
        index,
      });
      return out.record;
    } finally {
      await disposeModel(da);
      if (ca) await disposeModel(ca);
    }
  };
  const a = await play(args.a, 0);
  const b = await play(args.b, 1);
  const { role, opponent, scenarioId, seed } = args;
  return { role, opponent, scenarioId, seed, a: { spec: args.a, episode: a }, b: { spec: args.b, episode: b }, divergence: diffEpisodes(a, b) };
}

/**
 * Builtin policies hold ONNX sessions (`model`); the engine outlives an episode, so it releases
 * them when play ends instead of leaving that to process exit.
 */
export async function disposeModel(policy: DaPolicy | CaPolicy): Promise<void> {
  const model = (policy as { model?: { dispose?: () => Promise<void> } }).model;
  await model?.dispose?.();
}
