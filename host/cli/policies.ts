/**
 * Policy SPECs from the command line: host/policies/policies.ts resolves them; this wraps its
 * problems in usage errors that name the option (`--da "DA7": …`) and shows `sft`'s training on
 * stderr.
 */
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import type { Domain } from '../../core/domain/types';
import type { DaModel } from '../../models/da-model';
import type { SessionSettings } from '../../models/session';
import {
  JudgeSpecError,
  PolicyError,
  loadDaModel,
  resolveJudge as resolveJudgeIn,
  resolveCa as resolveCaIn,
  resolveDa as resolveDaIn,
  resolveLlmDa as resolveLlmDaIn,
} from '../policies/policies';
import type { LlmDa } from '../../models/llm/llm-da';
import type { PolicyContext } from '../policies/policies';
import type { PendingLedger } from '../../models/llm/ledger';
import { RULE_JUDGE_SPEC } from '../../core/judge/port';
import type { Judge } from '../../core/judge/port';
import { UsageError } from './options';
import { progressBar } from './progress';
import type { Progress } from './progress';
import type { GlobalOptions } from './global-options';

export interface ModelOptions {
  session?: SessionSettings;
  /** SFT epochs when `sft` trains a new DA. */
  epochs?: number;
  /** SFT progress in words while `sft` trains (the app's Play screen). */
  onTraining?: (p: { label: string; done: number; total: number }) => void;
  /** An LLM policy's calls go to this ledger instead of the lab's (a play session's). */
  ledger?: PendingLedger;
}

export { flushPendingLlmCalls, matchConcurrency, pendingLlmCalls, playLedger } from '../policies/policies';

/** The option a role's SPEC came from. */
const optionOf = (e: PolicyError) => `--${e.role.toLowerCase()}`;

async function asUsage<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof PolicyError) throw new UsageError(`${optionOf(e)} "${e.spec}": ${e.detail}`, { cause: e });
    throw e;
  }
}

function context(g: GlobalOptions, opts: ModelOptions): PolicyContext {
  let bar: Progress | null = null;
  return {
    db: g.db,
    seed: g.seed,
    ...(opts.session ? { session: opts.session } : {}),
    ...(opts.epochs !== undefined ? { epochs: opts.epochs } : {}),
    ...(opts.onTraining ? { onTraining: opts.onTraining } : {}),
    ...(g.cache === false ? { cache: false } : {}),
    ...(opts.ledger ? { ledger: opts.ledger } : {}),
    log: (line) => {
      bar?.stop();
      bar = null;
      process.stderr.write(`${line}\n`);
    },
    onSftStep: (step, total) => (bar ??= progressBar(`sft DA-sft-${g.seed}`)).update(step, total),
  };
}

/** The builtin DA model a SPEC names (`sft`, `latest`, or a checkpoint name). */
export async function daModelFor(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<DaModel> {
  return asUsage(async () => (await loadDaModel(spec, domain, context(g, opts))).model);
}

export function resolveDa(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<DaPolicy> {
  return asUsage(() => resolveDaIn(spec, domain, context(g, opts)));
}

export function resolveCa(
  spec: string,
  domain: Domain,
  g: GlobalOptions,
  opts: ModelOptions = {},
  speak?: Parameters<typeof resolveCaIn>[3],
): Promise<CaPolicy> {
  return asUsage(() => resolveCaIn(spec, domain, context(g, opts), speak));
}

/** The LLM DA a SPEC names, when it names an endpoint saved in the lab; undefined otherwise. */
export function resolveLlmDa(spec: string, g: GlobalOptions): LlmDa | undefined {
  return resolveLlmDaIn(spec, context(g, {}));
}

/** The judge `--judge SPEC` names: `rule` or an LLM endpoint in the lab. */
export function resolveJudge(spec: string, g: GlobalOptions): Judge {
  try {
    return resolveJudgeIn(spec, context(g, {}));
  } catch (e) {
    if (e instanceof JudgeSpecError) throw new UsageError(`--judge "${e.spec}": ${e.detail}`, { cause: e });
    throw e;
  }
}

/** `--judge SPEC` on a command (default: the rule judge). */
export const JUDGE_OPTION = ['--judge <spec>', `the judge: ${RULE_JUDGE_SPEC} (builtin) | an LLM endpoint saved in the lab`, RULE_JUDGE_SPEC] as const;
