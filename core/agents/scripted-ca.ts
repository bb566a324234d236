/**
 * The scripted CA: a customer that draws a `CaChoice` from fixed style weights and renders it
 * from the project's utterance bank (`ca-choices.ts`), with controls for how directly it states
 * the need, how much concrete detail it adds, whether it drops decoy cues of another tool's
 * domain, hedges, its tone and whether it holds details back until asked. It answers a
 * clarifying question with detail and thanks the agent after an explanation.
 */
import type { Directness, Domain, DomainTool } from '../domain/types';
import { DOMAIN_TOOLS } from '../domain/types';
import type { Rng } from '../random';
import type { CaObservation } from '../world/environment';
import type { CaChoice, CaDetailLevel, CaTone } from './ca-choices';
import { caTurnState, renderCaChoice } from './ca-choices';
import type { CaPolicy } from './policy';

export interface ScriptedCaStyle {
  /** Relative weights of direct / indirect / vague openings. */
  directness: Record<Directness, number>;
  /** Probability of adding a concrete-detail clause (1–3 facts, uniformly) to the opening. */
  detail: number;
  /** Probability of adding a decoy cue from another tool's domain. */
  decoy: number;
  /** Probability of opening with a hedge ("I might be wrong, but"). */
  hedge: number;
  /** Relative weights of the tones. */
  tone: Record<CaTone, number>;
  /** Probability of withholding details until asked (default 0). */
  withhold?: number;
  /**
   * How many facts an answer to a question states: 'all' (default: every fact asked for, and
   * more), or 'some' (one to three, uniformly): how a learned CA answers, one fact wrapped in hedges
   * and decoys.
   */
  answerFacts?: 'all' | 'some';
}

export const DEFAULT_CA_STYLE: ScriptedCaStyle = {
  directness: { direct: 0.4, indirect: 0.4, vague: 0.2 },
  detail: 0.5,
  decoy: 0.3,
  hedge: 0.2,
  tone: { neutral: 0.6, frustrated: 0.25, anxious: 0.15 },
  withhold: 0.1,
};

/**
 * A customer dressed like the builtin CA after a few gyms: decoys in half its turns, hedges, every
 * tone, answers of one to three facts. The hasty-expert demonstrations play against it, so the
 * recovery they teach is not tied to the default style's tidy answers.
 */
export const CAMOUFLAGED_CA_STYLE: ScriptedCaStyle = {
  directness: { direct: 0.3, indirect: 0.4, vague: 0.3 },
  detail: 0.5,
  decoy: 0.5,
  hedge: 0.4,
  tone: { neutral: 0.34, frustrated: 0.33, anxious: 0.33 },
  withhold: 0.2,
  answerFacts: 'some',
};

export class ScriptedCa implements CaPolicy {
  readonly name = 'scripted';
  private readonly toolOf = new Map<string, DomainTool>();

  constructor(
    private readonly domain: Domain,
    readonly style: ScriptedCaStyle = DEFAULT_CA_STYLE,
  ) {
    for (const e of domain.taxonomy) this.toolOf.set(e.intent, e.tool);
  }

  /** The style's choice for this turn: openings follow the weights, answers give every fact asked for. */
  choose(obs: CaObservation, rng: Rng): CaChoice {
    const answering = caTurnState(obs).kind === 'answer';
    const directness = rng.weighted(this.style.directness);
    const tone = rng.weighted(this.style.tone);
    const hedge = rng.chance(this.style.hedge);
    const someFacts = answering && this.style.answerFacts === 'some';
    const detail: CaDetailLevel = answering && !someFacts ? 3 : someFacts || rng.chance(this.style.detail) ? (rng.int(1, 3) as CaDetailLevel) : 0;
    const own = this.toolOf.get(obs.intent);
    const decoy = rng.chance(this.style.decoy) ? rng.pick(DOMAIN_TOOLS.filter((t) => t !== own)) : null;
    const withhold = rng.chance(this.style.withhold ?? 0);
    return { directness, detail, decoy, hedge, tone, withhold };
  }

  speak(obs: CaObservation, rng: Rng): string {
    return renderCaChoice(this.choose(obs, rng), obs, this.domain.bank, rng);
  }
}
