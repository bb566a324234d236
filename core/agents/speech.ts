/**
 * What an agent says, rendered from templates and grounded only in tool results, so that every
 * fact a templated DA states is one the judge can find in the transcript.
 */
import type { ToolResult } from '../world/transcript';
import type { CheckCardStatusResult, DisputeChargeResult, GetTransactionsResult, TransferFundsResult, TransferToHumanResult } from '../world/tool-types';

export const money = (x: number) => `$${x.toFixed(2)}`;

/** A dispute the backend could not pin to one charge (none named, none found, several match): the customer can still say which. */
export function chargeNotIdentified(r: ToolResult | undefined): boolean {
  return (
    r !== undefined &&
    !r.ok &&
    r.tool === 'dispute_charge' &&
    (r.error.code === 'INVALID_ARGUMENTS' || r.error.code === 'NOT_FOUND' || r.error.code === 'AMBIGUOUS')
  );
}

export function explainResult(r: ToolResult): string {
  // Explaining a dispute that found no single charge means asking which one it is.
  if (chargeNotIdentified(r)) return `I couldn't tell which charge that is (${(r as { error: { message: string } }).error.message}). ${CHARGE_QUESTION}`;
  if (!r.ok) return `I'm sorry, I wasn't able to complete that (${r.error.message}).`;
  switch (r.tool) {
    case 'dispute_charge': {
      const d = r.data as unknown as DisputeChargeResult;
      const credit = d.provisional_credit ? ' You will see a provisional credit while it is investigated.' : '';
      return `I've filed a dispute (${d.dispute_id}) for the ${money(d.amount)} charge from ${d.merchant}.${credit}`;
    }
    case 'get_transactions': {
      const g = r.data as unknown as GetTransactionsResult;
      const items = g.transactions.slice(0, 3).map((t) => `${t.merchant} ${money(t.amount)} on ${t.date}${t.status === 'pending' ? ' (pending)' : ''}`);
      return items.length ? `Here are your latest transactions: ${items.join('; ')}.` : 'There are no recent transactions on this account.';
    }
    case 'check_card_status': {
      const c = r.data as unknown as CheckCardStatusResult;
      if (c.unblocked) return `Your card ending ${c.last4} had a fraud-prevention hold; I've lifted it and the card is now ${c.status}.`;
      const decline = c.last_decline ? ` The last decline was ${money(c.last_decline.amount)} at ${c.last_decline.merchant} (${c.last_decline.reason}).` : '';
      return `Your card ending ${c.last4} is ${c.status}.${decline}`;
    }
    case 'transfer_funds': {
      const f = r.data as unknown as TransferFundsResult;
      return `Done: I've moved ${money(f.amount)} between your accounts (reference ${f.transfer_id}).`;
    }
    case 'transfer_to_human': {
      const h = r.data as unknown as TransferToHumanResult;
      return `I'm connecting you with our ${h.department} team (ticket ${h.ticket_id}); the wait is about ${h.wait_minutes} minutes.`;
    }
    default:
      return 'That is done.';
  }
}

/**
 * What identifies a charge to dispute_charge: its merchant or its amount (the tool takes no date).
 * Asking for a date as well let a customer answer with the date alone ("the payment last
 * Thursday"), one fact that no call can use; a customer answers what was asked first.
 */
export const CHARGE_QUESTION = 'Could you tell me the merchant and the amount?';
export const CLARIFY_QUESTION = `I'm sorry to hear that. Could you tell me which transaction it is: the merchant and the amount?`;
export const OPEN_QUESTION = 'Thanks. Could you tell me a bit more about what happened?';
export const GOODBYE = 'Thank you for calling. Goodbye.';
