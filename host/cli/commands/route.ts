/**
 * `sparring route --da SPEC`: reads customer utterances on stdin, one per line, and writes one
 * JSON line each: `{"text", "tool", "p", "hypotheses": [{"intent", "p"}, …]}` — the domain tool
 * the DA would call for that utterance once the caller is verified, and its probability.
 *
 * SPEC: `sft` trains a builtin DA by SFT right here (seeded by --seed; progress on stderr) and
 * stores it in the lab as checkpoint `DA-sft-<seed>`, or reuses that checkpoint when the lab has
 * it; `scripted` is the keyword router; `latest` or a checkpoint name loads a stored builtin DA;
 * an LLM endpoint's name asks the model for its next action after a verified lookup (the same
 * observation the builtin DA routes from): `tool` is the domain tool it called, or null when it
 * did something else (`raw` then shows what), and `p` is 1 or 0, since an LLM gives no probability.
 * Blank lines are skipped.
 */
import { RUN_CONFIG_BOUNDS } from '../../../core/coevolution/run-config';
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
import { daModelFor, resolveLlmDa } from '../policies';
import type { LlmDa } from '../../../models/llm/llm-da';
import { deriveSeed, Rng } from '../../../core/random';
import { parseDaOutput } from '../../../core/wire';
import { routingObservation } from '../../../core/rl/demos';
import type { GlobalOptions } from '../global-options';

interface RouteOptions extends DeviceOptions {
  da: string;
  epochs?: number;
}

export interface RouteLine {
  text: string;
  /** The domain tool routed to; null when an LLM DA did not call one. */
  tool: DomainTool | null;
  /** The tool's probability under the DA's action distribution (scripted: its share of the cue weight). */
  p: number;
  /** The DA's top intent hypotheses (none for the keyword router, which has no intent model). */
  hypotheses: { intent: string; p: number }[];
  /** An LLM DA's output, as it came. */
  raw?: string;
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

function llmRouter(da: LlmDa, seed: number): Router {
  let n = 0;
  return async (text) => {
    const raw = await da.act(routingObservation(text), new Rng(deriveSeed(seed, 'route', n++)));
    const parsed = parseDaOutput(raw);
    const called = parsed.ok && parsed.action.action_type === 'tool_call' ? parsed.action.content.trim() : '';
    const tool = (DOMAIN_TOOLS as readonly string[]).includes(called) ? (called as DomainTool) : null;
    return { text, tool, p: tool ? 1 : 0, hypotheses: [], raw };
  };
}

export function registerRoute(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('route')
      .description('reads customer utterances on stdin, one per line; writes one JSON line each with the tool the DA routes to')
      .option('--da <spec>', 'DA policy: sft (train now by SFT, kept as DA-sft-<seed>) | scripted | latest | a DA checkpoint name | an LLM endpoint', 'sft')
      .option('--epochs <n>', 'SFT epochs when --da sft trains a new DA', positiveInt('--epochs', RUN_CONFIG_BOUNDS.epochs)),
    'the DA',
  ).action(async (opts: RouteOptions) => {
    const g = globals();
    const domain = bankingDomain();
    const { session } = await deviceSession(opts);
    let model: Promise<DaModel> | null = null;
    let router: Promise<Router> | null = null;
    const llm = resolveLlmDa(opts.da, g);
    const load = () =>
      (router ??=
        opts.da === 'scripted'
          ? Promise.resolve(scriptedRouter())
          : llm
            ? Promise.resolve(llmRouter(llm, g.seed))
            : (model = daModelFor(opts.da, domain, g, { session, ...(opts.epochs !== undefined ? { epochs: opts.epochs } : {}) })).then(modelRouter));
    if (process.stdin.isTTY) {
      process.stderr.write('route: reading customer utterances from stdin, one per line (Ctrl-D to end); e.g. echo "my card was stolen" | sparring route\n');
    }
    // A stored DA loads now (a bad SPEC fails before any input is read). `sft` may train for
    // seconds: piped, it waits for the first utterance, so empty input trains nothing; at a
    // terminal it starts at once, while the person types.
    if (opts.da !== 'sft') await load();
    else if (process.stdin.isTTY) void load().catch(() => undefined); // its error is reported where it is awaited
    let read = 0;
    try {
      const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
      for await (const line of lines) {
        const text = line.trim();
        if (text === '') continue;
        read++;
        const route = await load();
        process.stdout.write(`${JSON.stringify(await route(text))}\n`);
      }
      if (read === 0) process.stderr.write('route: nothing was read from stdin (no utterances); pipe customer utterances into it, one per line\n');
    } finally {
      if (model) await (await (model as Promise<DaModel>).catch(() => null))?.dispose();
    }
  });
}
