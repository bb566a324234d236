/**
 * `sparring route --da SPEC`: reads customer utterances on stdin, one per line, and writes one
 * JSON line each: `{"text", "tool", "p", "hypotheses": [{"intent", "p"}, …]}` — the domain tool
 * the DA would call for that utterance once the caller is verified, and its probability.
 *
 * SPEC: `sft` trains a builtin DA by SFT right here (seeded by --seed; progress on stderr) and
 * stores it in the lab as checkpoint `DA-sft-<seed>`, or reuses that checkpoint when the lab has
 * it; `scripted` is the keyword router; `latest` or a checkpoint name loads a stored builtin DA.
 * Blank lines are skipped.
 */
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { routingScores } from '../../../core/agents/scripted-da';
import type { Domain, DomainTool } from '../../../core/domain/types';
import { DOMAIN_TOOLS } from '../../../core/domain/types';
import { corpusRoutingItems, routingObservation } from '../../../core/rl/demos';
import { DaModel } from '../../../models/da-model';
import type { SessionSettings } from '../../../models/session';
import { bankingDomain } from '../../domain-files';
import { trainSftDa } from '../../routing-eval';
import { CheckpointError, checkpointStore } from '../../store/checkpoint-store';
import { corpusUtterances, listCorpusImports } from '../../store/corpus-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { positiveInt, UsageError } from '../options';
import { progressBar } from '../progress';
import type { GlobalOptions } from '../main';

interface RouteOptions {
  da: string;
  epochs?: number;
  provider: string;
}

export interface RouteLine {
  text: string;
  tool: DomainTool;
  /** The tool's probability under the DA's action distribution (scripted: its share of the cue weight). */
  p: number;
  /** The DA's top intent hypotheses (none for the keyword router, which has no intent model). */
  hypotheses: { intent: string; p: number }[];
}

type Router = (text: string) => Promise<RouteLine>;

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** The keyword router of the scripted DA: the top cue score, escalation when no cue fires. */
function scriptedRouter(): Router {
  return async (text) => {
    const scores = routingScores(text);
    const total = DOMAIN_TOOLS.reduce((s, t) => s + scores[t], 0);
    if (total === 0) return { text, tool: 'transfer_to_human', p: round(1 / DOMAIN_TOOLS.length), hypotheses: [] };
    const tool = DOMAIN_TOOLS.reduce((best, t) => (scores[t] > scores[best] ? t : best), DOMAIN_TOOLS[0] as DomainTool);
    return { text, tool, p: round(scores[tool] / total), hypotheses: [] };
  };
}

function modelRouter(model: DaModel): Router {
  return async (text) => {
    const [r] = await model.routeTools([routingObservation(text)]);
    const hypotheses = model.topIntents(r!.prediction.intentProbs, 3).map((h) => ({ intent: h.intent, p: round(h.p) }));
    return { text, tool: r!.tool, p: round(r!.p), hypotheses };
  };
}

/** The SFT DA of this seed: the lab's `DA-sft-<seed>` if it has one, else trained now and stored under that name. */
async function sftModel(domain: Domain, db: string, seed: number, epochs: number | undefined, session: SessionSettings): Promise<DaModel> {
  const store = openSqliteStore(db);
  try {
    const checkpoints = checkpointStore(store.db);
    const name = `DA-sft-${seed}`;
    const existing = checkpoints.get(name);
    if (existing) {
      process.stderr.write(`route: using checkpoint ${name} from ${db}${epochs !== undefined ? ' (--epochs applies only when a new DA is trained)' : ''}\n`);
      return await DaModel.fromSnapshot(existing.snapshot, session);
    }
    const imports = listCorpusImports(store.db);
    const corpus = corpusRoutingItems(domain, corpusUtterances(store.db));
    process.stderr.write(`route: training ${name} by SFT on the bank's train slice${corpus.length ? ` and ${corpus.length} imported corpus rows` : ''}\n`);
    const bar = progressBar(`sft ${name}`);
    const trained = await trainSftDa(domain, {
      seed,
      session,
      extraRouting: corpus,
      ...(epochs !== undefined ? { sft: { epochs } } : {}),
      hooks: { onStep: (p) => bar.update(p.step, p.totalSteps) },
    });
    bar.stop();
    const last = trained.sft.epochs.at(-1)?.metrics ?? {};
    checkpoints.save({
      role: 'DA',
      name,
      source: 'sft',
      step: trained.sft.steps,
      snapshot: await trained.model.snapshot(),
      metrics: last,
      trainingData: [
        { kind: 'demos', id: `bank-train-slice:seed=${seed}` },
        ...imports.map((i) => ({ kind: 'corpus_import', id: String(i.id) })),
      ],
    });
    process.stderr.write(
      `route: stored ${name} in ${db} (${trained.demonstrations} demonstrations, ${trained.sft.steps} steps, ` +
        `final loss ${(last['sft/loss'] ?? NaN).toFixed(3)}, accuracy ${(last['sft/accuracy'] ?? NaN).toFixed(3)})\n`,
    );
    return trained.model;
  } finally {
    store.close();
  }
}

/** A stored builtin DA: `latest` or a checkpoint name. */
async function storedModel(spec: string, db: string, session: SessionSettings): Promise<DaModel> {
  if (db !== ':memory:' && !existsSync(db)) {
    throw new UsageError(`--da "${spec}": no such policy; the lab ${db} does not exist yet, so it holds no DA checkpoints. Choices: "sft" (train one now) or "scripted" (the keyword router).`);
  }
  const store = openSqliteStore(db);
  try {
    const c = checkpointStore(store.db).resolve(spec, 'DA');
    return await DaModel.fromSnapshot(c.snapshot, session);
  } catch (e) {
    if (e instanceof CheckpointError) {
      throw new UsageError(`--da "${spec}": ${e.message}. Other choices: "sft" (train one now) or "scripted" (the keyword router).`);
    }
    throw e;
  } finally {
    store.close();
  }
}

export function registerRoute(program: Command, globals: () => GlobalOptions): void {
  program
    .command('route')
    .description('reads customer utterances on stdin, one per line; writes one JSON line each with the tool the DA routes to')
    .option('--da <spec>', 'DA policy: sft (train now by SFT, kept as DA-sft-<seed>) | scripted | latest | a DA checkpoint name', 'sft')
    .option('--epochs <n>', 'SFT epochs when --da sft trains a new DA', positiveInt('--epochs'))
    .option('--provider <name>', 'ONNX Runtime execution provider (cpu, cuda, dml, coreml, webgpu; falls back to cpu)', 'cpu')
    .action(async (opts: RouteOptions) => {
      const g = globals();
      const domain = bankingDomain();
      const session: SessionSettings = { provider: opts.provider };
      let model: DaModel | null = null;
      let route: Router;
      if (opts.da === 'scripted') route = scriptedRouter();
      else {
        model = opts.da === 'sft' ? await sftModel(domain, g.db, g.seed, opts.epochs, session) : await storedModel(opts.da, g.db, session);
        route = modelRouter(model);
      }
      try {
        const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
        for await (const line of lines) {
          const text = line.trim();
          if (text === '') continue;
          process.stdout.write(`${JSON.stringify(await route(text))}\n`);
        }
      } finally {
        await model?.dispose();
      }
    });
}
