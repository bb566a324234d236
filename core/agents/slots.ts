/** Fills `{slot}` placeholders of bank sentences from the customer's facts. */
import type { CustomerFacts } from '../world/backend';
import type { SlotName } from '../domain/types';

export function formatAmount(x: number): string {
  return Number.isInteger(x) ? `$${x}` : `$${x.toFixed(2)}`;
}

export function slotValues(facts: CustomerFacts, name: string): Record<SlotName, string> {
  return {
    merchant: facts.merchant,
    amount: formatAmount(facts.amount),
    date: facts.datePhrase,
    channel: facts.channel,
    place: facts.place,
    account: facts.account,
    card_last4: facts.cardLast4,
    name,
  };
}

export function fillSlots(text: string, values: Record<SlotName, string>): string {
  return text.replace(/\{([a-z_0-9]+)\}/g, (m, k: string) => (k in values ? values[k as SlotName] : m));
}

/** Does a template use any slot? */
export function slotsIn(text: string): string[] {
  return [...text.matchAll(/\{([a-z_0-9]+)\}/g)].map((m) => m[1]!);
}
