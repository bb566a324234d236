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
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { routingScores } from '../../../core/agents/scripted-da';
import type { DomainTool } from '../../../core/domain/types';
import { DOMAIN_TOOLS } from '../../../core/domain/types';
import type { DaModel } from '../../../models/da-model';
import { bankingDomain } from '../../domain-files';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { positiveInt } from '../options';
import { daModelFor } from '../policies';
import { routingObservation } from '../../../core/rl/demos';
import type { GlobalOptions } from '../main';

interface RouteOptions extends DeviceOptions {
  da: string;
  epochs?: number;
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

export function registerRoute(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(program
    .command('route')
    .description('reads customer utterances on stdin, one per line; writes one JSON line each with the tool the DA routes to')
    .option('--da <spec>', 'DA policy: sft (train now by SFT, kept as DA-sft-<seed>) | scripted | latest | a DA checkpoint name', 'sft')
    .option('--epochs <n>', 'SFT epochs when --da sft trains a new DA', positiveInt('--epochs')), 'the DA')
    .action(async (opts: RouteOptions) => {
      const g = globals();
      const domain = bankingDomain();
      const { session } = await deviceSession(opts);
      let model: DaModel | null = null;
      let route: Router;
      if (opts.da === 'scripted') route = scriptedRouter();
      else {
        model = await daModelFor(opts.da, domain, g, { session, ...(opts.epochs !== undefined ? { epochs: opts.epochs } : {}) });
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
