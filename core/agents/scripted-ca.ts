/**
 * The scripted CA: a customer that samples its words from the project's utterance bank, with
 * controls for how directly it states the need, how much concrete detail it adds, whether it
 * drops decoy cues of another tool's domain, hedges, and its tone. It answers a clarifying
 * question with detail and thanks the agent after an explanation.
 */
import type { Directness, Domain, DomainTool } from '../domain/types';
import { DOMAIN_TOOLS } from '../domain/types';
import type { Rng } from '../random';
import type { CaObservation } from '../world/environment';
import type { CaPolicy } from './policy';
import { fillSlots, slotValues } from './slots';

export interface ScriptedCaStyle {
  /** Relative weights of direct / indirect / vague openings. */
  directness: Record<Directness, number>;
  /** Probability of adding a concrete-detail sentence to the opening. */
  detail: number;
  /** Probability of adding a decoy cue from another tool's domain. */
  decoy: number;
  /** Probability of opening with a hedge ("I might be wrong, but"). */
  hedge: number;
  /** Relative weights of the tones. */
  tone: Record<'neutral' | 'frustrated' | 'anxious', number>;
}

export const DEFAULT_CA_STYLE: ScriptedCaStyle = {
  directness: { direct: 0.4, indirect: 0.4, vague: 0.2 },
  detail: 0.5,
  decoy: 0.3,
  hedge: 0.2,
  tone: { neutral: 0.6, frustrated: 0.25, anxious: 0.15 },
};

function lowerFirst(s: string): string {
  return s.length > 1 && /^[A-Z][a-z]/.test(s) && !/^I\b/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s;
}

export class ScriptedCa implements CaPolicy {
  readonly name = 'scripted';
  private readonly byIntent = new Map<string, Record<Directness, string[]>>();
  private readonly toolOf = new Map<string, DomainTool>();

  constructor(
    private readonly domain: Domain,
    readonly style: ScriptedCaStyle = DEFAULT_CA_STYLE,
  ) {
    for (const u of domain.bank.utterances) {
      let row = this.byIntent.get(u.intent);
      if (!row) this.byIntent.set(u.intent, (row = { direct: [], indirect: [], vague: [] }));
      row[u.style].push(u.text);
    }
    for (const e of domain.taxonomy) this.toolOf.set(e.intent, e.tool);
  }

  speak(obs: CaObservation, rng: Rng): string {
    const values = slotValues(obs.facts, obs.name);
    const bank = this.domain.bank;
    const lastAgent = [...obs.dialogue].reverse().find((d) => d.role === 'agent');
    const customerTurns = obs.dialogue.filter((d) => d.role === 'customer').length;

    if (customerTurns > 0 && lastAgent) {
      // A question gets details; anything else gets an acknowledgement.
      if (lastAgent.text.trim().endsWith('?')) return fillSlots(rng.pick(bank.detailReplies), values);
      return rng.pick(bank.acknowledgements);
    }

    const row = this.byIntent.get(obs.intent);
    if (!row) throw new Error(`ScriptedCa: no utterances for intent "${obs.intent}" in the bank`);
    let style = rng.weighted(this.style.directness);
    if (row[style].length === 0) style = (['indirect', 'direct', 'vague'] as const).find((s) => row[s].length > 0)!;
    let text = fillSlots(rng.pick(row[style]), values);

    const tone = rng.weighted(this.style.tone);
    const prefix = rng.pick(bank.tones[tone]);
    const join = (lead: string, rest: string) => (/[.!?]$/.test(lead.trim()) ? `${lead} ${rest}` : `${lead} ${lowerFirst(rest)}`);
    if (rng.chance(this.style.hedge)) text = join(rng.pick(bank.hedges), text);
    else if (prefix) text = join(prefix, text);
    if (rng.chance(this.style.detail)) text = `${text} ${fillSlots(rng.pick(bank.detailReplies), values)}`;
    if (rng.chance(this.style.decoy)) {
      const own = this.toolOf.get(obs.intent);
      const other = rng.pick(DOMAIN_TOOLS.filter((t) => t !== own));
      text = `${text} ${fillSlots(rng.pick(bank.decoys[other]), values)}`;
    }
    return text.replace(/\s+/g, ' ').trim();
  }
}
