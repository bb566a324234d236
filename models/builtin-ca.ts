/**
 * The builtin CA policy: the network of `ca-model.ts` chooses how to compose each utterance and
 * `renderCaChoice` turns the choice into words from the utterance bank.
 *
 * Every draw — the choice's heads, then the sentence, prefixes, facts and cue — comes from the
 * Rng passed to `speak`, so an episode's words depend only on its seed and the weights. Calls
 * that arrive in the same turn of the event loop (concurrent episodes) share one forward pass
 * (micro-batching); each still samples from its own Rng, so batching never changes what is said.
 */
import type { CaChoice } from '../core/agents/ca-choices';
import { boundCaChoice, renderCaChoice } from '../core/agents/ca-choices';
import type { CaTacticBounds } from '../core/agents/ca-choices';
import type { CaPolicy, CheckpointRef } from '../core/agents/policy';
import type { UtteranceBank } from '../core/domain/types';
import type { Rng } from '../core/random';
import type { CaObservation } from '../core/world/environment';
import { greedyChoice, sampleChoice } from './ca-model';
import type { CaModel } from './ca-model';

export interface BuiltinCaOptions {
  /** Label for tables and the store, e.g. "CA2" (default "builtin"). */
  name?: string;
  /** The stored checkpoint these weights came from, recorded with every match it plays. */
  checkpoint?: CheckpointRef;
  /** Take each head's most probable value instead of sampling (evaluation). */
  greedy?: boolean;
  /** Most observations in one forward pass (default 256). */
  maxBatch?: number;
  /** Bounds on the sampled tactics (EAU knobs `ca.tactics.*`); the choice returned is the bounded one, its logProb the sampled one's. */
  tactics?: CaTacticBounds;
}

/** One utterance with the choice behind it (what a CA gym records). */
export interface CaDecision {
  text: string;
  choice: CaChoice;
  /** log π(choice | observation), the sum over heads. */
  logProb: number;
}

interface Pending {
  obs: CaObservation;
  rng: Rng;
  resolve: (d: CaDecision) => void;
  reject: (e: unknown) => void;
}

export class BuiltinCa implements CaPolicy {
  readonly name: string;
  readonly checkpoint?: CheckpointRef;
  private readonly greedy: boolean;
  private readonly maxBatch: number;
  private readonly tactics: CaTacticBounds | undefined;
  private queue: Pending[] = [];
  private scheduled = false;
  /** Forward passes run and the observations they covered (how well calls were batched). */
  readonly stats = { forwards: 0, observations: 0 };

  constructor(
    readonly model: CaModel,
    private readonly bank: UtteranceBank,
    opts: BuiltinCaOptions = {},
  ) {
    this.name = opts.name ?? 'builtin';
    if (opts.checkpoint) this.checkpoint = opts.checkpoint;
    this.greedy = opts.greedy ?? false;
    this.maxBatch = opts.maxBatch ?? 256;
    this.tactics = opts.tactics;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) throw new RangeError(`BuiltinCa: maxBatch must be a positive integer, got ${opts.maxBatch}`);
  }

  async speak(obs: CaObservation, rng: Rng): Promise<string> {
    return (await this.decide(obs, rng)).text;
  }

  /** The next utterance, with its choice and log-probability. */
  decide(obs: CaObservation, rng: Rng): Promise<CaDecision> {
    try {
      this.model.intentOf(obs.intent); // fail this call alone, not the batch it would join
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    return new Promise<CaDecision>((resolve, reject) => {
      this.queue.push({ obs, rng, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) setImmediate(() => void this.flush());
    else this.scheduled = false;
    if (batch.length === 0) return;
    let logp: Float32Array;
    try {
      logp = await this.model.headLogProbs(batch.map((p) => p.obs));
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    this.stats.forwards++;
    this.stats.observations += batch.length;
    batch.forEach((p, b) => {
      try {
        const sampled = this.greedy ? greedyChoice(logp, b) : sampleChoice(logp, b, () => p.rng.next());
        const choice = boundCaChoice(sampled.choice, this.tactics, p.rng);
        const logProb = sampled.logProb;
        p.resolve({ text: renderCaChoice(choice, p.obs, this.bank, p.rng), choice, logProb });
      } catch (e) {
        p.reject(e);
      }
    });
  }
}
