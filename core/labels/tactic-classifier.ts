/**
 * A transparent, rule-based tactic classifier for the CA's opening utterances, built on the
 * automatic measures of core/coevolution/tactics.ts (entity density, opening length, decoy cues)
 * plus the strength of the intent's own routing cues and pressure words. It exists to be
 * compared with people (κ on the Annotate screen), so every rule is one readable line.
 */
import { routingScores } from '../agents/scripted-da';
import { measureOpening } from '../coevolution/tactics';
import type { OpeningMeasures } from '../coevolution/tactics';
import type { DomainTool } from '../domain/types';

/** Words of urgency, anger or distress that push the agent to act fast. */
const PRESSURE =
  /\b(?:furious|angry|upset|ridiculous|unacceptable|outrageous|urgent(?:ly)?|asap|right now|immediately|panicking|scared|desperate|fed up|sick of|worried|stressed|frustrated)\b|!{2,}/gi;
/** Routing-cue score (scripted DA weights) at which a tool counts as named. */
const NAMED = 0.8;
/** Entities (amounts, dates, merchants, places, channels) and tokens of a detail-dense opening. */
const CAMOUFLAGE_ENTITIES = 3;
const CAMOUFLAGE_TOKENS = 20;

export interface TacticFeatures extends OpeningMeasures {
  /** Routing-cue score of the tool the intent needs. */
  ownCue: number;
  /** Pressure words. */
  pressure: number;
}

export function tacticFeatures(text: string, expectedTool: DomainTool): TacticFeatures {
  const m = measureOpening(text, expectedTool);
  return { ...m, ownCue: routingScores(text)[expectedTool], pressure: [...text.matchAll(PRESSURE)].length };
}

/** The first rule that fires, in this order; labels are those of DEFAULT_TACTIC_LABELS. */
export function classifyTactic(f: TacticFeatures): string {
  if (f.pressure > 0) return 'Emotional pressure';
  if (f.entities >= CAMOUFLAGE_ENTITIES && f.tokens >= CAMOUFLAGE_TOKENS) return 'Contextual camouflage';
  if (f.ownCue >= NAMED && f.decoyCues > 0) return 'Multi-intent';
  if (f.ownCue >= NAMED) return 'Direct intent';
  return 'Vague/indirect';
}
