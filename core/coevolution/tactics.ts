/**
 * Automatic tactic measures of the CA's opening utterances — the measures RL-ADA §5.3 proposes
 * for Contextual Camouflage (intent buried in dense, specific customer detail): named-entity
 * density, opening length, decoy cues and hedges. Computed from text alone, per match.
 */
import type { DomainTool } from '../domain/types';
import { ROUTING_CUES } from '../agents/scripted-da';

export interface OpeningMeasures {
  tokens: number;
  /** Mentions of money amounts, dates, merchants, places and channels. */
  entities: number;
  /** entities / tokens. */
  entityDensity: number;
  /** Cue phrases of domain tools other than the one the intent needs. */
  decoyCues: number;
  /** Hedges and self-doubt ("I might be wrong", "maybe", "not sure"). */
  hedges: number;
}

export interface TacticSummary {
  n: number;
  meanTokens: number;
  meanEntityDensity: number;
  meanEntities: number;
  /** Share of openings with at least one decoy cue. */
  decoyRate: number;
  /** Share of openings with at least one hedge. */
  hedgeRate: number;
}

const MONEY = /\$\s?\d[\d,]*(?:\.\d+)?|\b\d+(?:\.\d+)?\s?(?:dollars|bucks|usd)\b/gi;
const DATE =
  /\b(?:today|yesterday|last (?:week|month|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:on )?(?:january|february|march|april|may|june|july|august|september|october|november|december) \d{1,2}(?:st|nd|rd|th)?|\d+ days? ago|this (?:morning|week))\b/gi;
const CHANNEL = /\b(?:online|contactless|at the atm|atm|in store|in-store|tap to pay|apple pay|google pay)\b/gi;
const PLACE = /\b(?:in|at|near) ([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b/g;
/** Brand-like spans: ALL-CAPS tokens or Capitalised words that do not start a sentence. */
const MERCHANT = /(?<![.!?]\s|^)\b(?:[A-Z][A-Za-z'&.*]+(?:\s[A-Z][A-Za-z'&.*]+)*|[A-Z0-9*]{3,}(?:\s[A-Z0-9*]{2,})*)/g;
const HEDGES = [
  'might be wrong',
  'not sure',
  'maybe',
  'i think',
  'probably',
  'could be',
  'i guess',
  'perhaps',
  'possibly',
  'it seems',
  'seems like',
  'i might',
  'not certain',
  'unless i',
  'or maybe',
  'i could be',
];

function count(re: RegExp, s: string): number {
  return [...s.matchAll(re)].length;
}

export function measureOpening(text: string, expectedTool: DomainTool): OpeningMeasures {
  const tokens = text.split(/\s+/).filter(Boolean).length;
  const lower = text.toLowerCase().replace(/’/g, "'");
  const places = [...text.matchAll(PLACE)].map((m) => m[1]!);
  const merchants = [...text.matchAll(MERCHANT)]
    .map((m) => m[0].replace(/[.]+$/, ''))
    .filter((m) => !/^(I|I'm|I've|I'd|My|The|It|Hi|Hello|Hey|Ok|Okay)$/.test(m) && !places.includes(m)).length;
  const entities = count(MONEY, text) + count(DATE, text) + count(CHANNEL, text) + places.length + merchants;
  let decoyCues = 0;
  for (const [tool, cues] of Object.entries(ROUTING_CUES) as [DomainTool, [string, number][]][]) {
    if (tool === expectedTool) continue;
    for (const [cue, w] of cues) if (w >= 0.8 && lower.includes(cue)) decoyCues++;
  }
  const hedges = HEDGES.reduce((s, h) => (lower.includes(h) ? s + 1 : s), 0);
  return { tokens, entities, entityDensity: tokens ? entities / tokens : 0, decoyCues, hedges };
}

export function summariseOpenings(openings: readonly { text: string; expectedTool: DomainTool }[]): TacticSummary {
  const ms = openings.map((o) => measureOpening(o.text, o.expectedTool));
  const n = ms.length;
  const mean = (f: (m: OpeningMeasures) => number) => (n ? ms.reduce((s, m) => s + f(m), 0) / n : 0);
  return {
    n,
    meanTokens: mean((m) => m.tokens),
    meanEntityDensity: mean((m) => m.entityDensity),
    meanEntities: mean((m) => m.entities),
    decoyRate: mean((m) => (m.decoyCues > 0 ? 1 : 0)),
    hedgeRate: mean((m) => (m.hedges > 0 ? 1 : 0)),
  };
}
