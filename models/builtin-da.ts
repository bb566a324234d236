/**
 * The builtin DA policy (DESIGN.md §4): a `DaModel` picks a `DaChoice` — greedily, or sampled at a
 * temperature — and `renderDaChoice` turns it into the wire format, with tool arguments from the
 * dialogue and speech from templates grounded in tool results. `thinking` states the top three
 * intent hypotheses with their probabilities and the chosen next step. When the greedy choice is
 * the first domain tool call, the tool is the one both heads favour (`DaModel.routedTool`).
 *
 * Micro-batching: `act()` calls that arrive while no forward is running are queued and answered
 * together by one forward run on the next turn of the event loop, and calls that arrive while one
 * runs wait for it and go in the next batch. An arena playing C episodes at once thus runs
 * forwards of up to C observations. Answers do not depend on batching: a sampled choice uses the
 * calling episode's own random draw, taken when `act()` is called.
 */
import type { DaChoice } from '../core/agents/da-actions';
import { DA_CHOICES, dialogueState, renderDaChoice } from '../core/agents/da-actions';
import type { DialogueState } from '../core/agents/da-actions';
import type { DaPolicy, CheckpointRef } from '../core/agents/policy';
import { isDomainTool } from '../core/domain/types';
import type { Rng } from '../core/random';
import type { DaObservation } from '../core/world/environment';
import type { DaModel, DaPrediction } from './da-model';
import { argmaxOf, sampleIndex } from './da-model';

export interface BuiltinDaOptions {
  /** Label for tables and the store (default "builtin"). */
  name?: string;
  /** The stored checkpoint these weights came from, recorded with every match it plays. */
  checkpoint?: CheckpointRef;
  /** 'greedy' (default): the most probable choice; 'sample': a draw from the policy. */
  mode?: 'greedy' | 'sample';
  /** Sampling temperature (mode 'sample'); 1 is the policy itself. */
  temperature?: number;
  /** Most observations in one forward run (default 512). */
  maxBatch?: number;
}

interface Pending {
  obs: DaObservation;
  u: number;
  /** The choices it may make (`actWithin`); undefined: all. */
  allowed?: ReadonlySet<DaChoice>;
  resolve: (raw: string) => void;
  reject: (e: unknown) => void;
}

/** What the DA has done so far, for `thinking`. */
function have(s: DialogueState): string {
  const parts = [s.lookup ? 'verified' : 'not verified'];
  const call = s.domainCalls[0]?.action?.content;
  if (call) parts.push(`${call} called${s.explained ? ', explained' : ''}`);
  return parts.join('; ');
}

export class BuiltinDa implements DaPolicy {
  readonly name: string;
  readonly checkpoint?: CheckpointRef;
  private readonly mode: 'greedy' | 'sample';
  private readonly temperature: number;
  private readonly maxBatch: number;
  private queue: Pending[] = [];
  private scheduled = false;
  private running = false;

  constructor(
    readonly model: DaModel,
    opts: BuiltinDaOptions = {},
  ) {
    this.name = opts.name ?? 'builtin';
    if (opts.checkpoint) this.checkpoint = opts.checkpoint;
    this.mode = opts.mode ?? 'greedy';
    this.temperature = opts.temperature ?? 1;
    this.maxBatch = opts.maxBatch ?? 512;
    if (!(this.temperature > 0)) throw new RangeError(`BuiltinDa: temperature must be positive, got ${this.temperature}`);
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) throw new RangeError(`BuiltinDa: maxBatch must be a positive integer, got ${this.maxBatch}`);
  }

  act(obs: DaObservation, rng: Rng): Promise<string> {
    return this.actWithin(obs, rng);
  }

  /**
   * `act`, choosing only among `allowed` (the most probable allowed choice, or a draw from the
   * policy renormalised over them): what a client's `tool_choice` or tool list asks of a served
   * checkpoint (`serve-model`). All choices, or none given: exactly `act`.
   */
  actWithin(obs: DaObservation, rng: Rng, allowed?: ReadonlySet<DaChoice>): Promise<string> {
    if (allowed !== undefined && allowed.size === 0) return Promise.reject(new RangeError('BuiltinDa.actWithin: no allowed choice'));
    const u = this.mode === 'sample' ? rng.next() : 0;
    return new Promise<string>((resolve, reject) => {
      this.queue.push({ obs, u, resolve, reject, ...(allowed && allowed.size < DA_CHOICES.length ? { allowed } : {}) });
      this.schedule();
    });
  }

  /**
   * The choice for one prediction (no I/O): greedy, or sampled with the draw `u`. A greedy first
   * domain call goes to the tool both heads favour (`DaModel.routedTool`).
   */
  choose(pred: DaPrediction, u: number, s?: DialogueState, allowed?: ReadonlySet<DaChoice>): DaChoice {
    const logp = allowed ? Array.from(pred.actionLogp, (l, i) => (allowed.has(DA_CHOICES[i]!) ? l : -Infinity)) : pred.actionLogp;
    if (this.mode === 'sample') return DA_CHOICES[sampleIndex(logp, u, this.temperature)]!;
    const choice = DA_CHOICES[argmaxOf(logp)]!;
    if (!isDomainTool(choice) || (s?.domainCalls.length ?? 0) > 0) return choice;
    const routed = this.model.routedTool(pred);
    return !allowed || allowed.has(routed) ? routed : choice;
  }

  /** The wire-format output for an observation and its prediction. */
  render(obs: DaObservation, pred: DaPrediction, u: number, allowed?: ReadonlySet<DaChoice>): string {
    const s = dialogueState(obs);
    const choice = this.choose(pred, u, s, allowed);
    const hyps = this.model
      .predictionTopIntents(pred, 3)
      .map((h) => `${h.intent} → ${h.tool} ${h.p.toFixed(2)}`)
      .join(', ');
    const p = Math.exp(pred.actionLogp[DA_CHOICES.indexOf(choice)]!);
    return renderDaChoice(choice, obs, `[HAVE: ${have(s)}] Intent hypotheses: ${hyps} -> Next: ${choice} (p ${p.toFixed(2)})`, s);
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      const preds = await this.model.predict(batch.map((r) => r.obs));
      batch.forEach((r, i) => {
        try {
          r.resolve(this.render(r.obs, preds[i]!, r.u, r.allowed));
        } catch (e) {
          r.reject(e);
        }
      });
    } catch (e) {
      for (const r of batch) r.reject(e);
    } finally {
      this.running = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
