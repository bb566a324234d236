/**
 * The tools backend: seeded synthetic customers, accounts, transactions and cards, and the six
 * tools acting on them. Each tool validates its arguments and returns a typed result or a typed
 * error; nothing here knows the customer's intent.
 */
import { faker } from '@faker-js/faker/locale/en';
import { z } from 'zod';
import type { Rng } from '../random';
import type { Scenario } from '../domain/types';
import { isToolName } from '../domain/types';
import type {
  AccountType,
  CardStatus,
  CheckCardStatusResult,
  Department,
  DisputeChargeResult,
  GetTransactionsResult,
  LookupAccountResult,
  ToolArgs,
  ToolResults,
  TransactionView,
  TransferFundsResult,
  TransferToHumanResult,
} from './tool-types';
import type { ToolErrorCode, ToolResult } from './transcript';

/** The world's "today": fixed, so that dates in transcripts are reproducible. */
export const WORLD_TODAY = '2026-03-16';

export interface Account {
  account_id: string;
  type: AccountType;
  balance: number;
  /** Newest first. */
  transactions: TransactionView[];
}

export interface Card {
  card_id: string;
  last4: string;
  status: CardStatus;
  /** Why a blocked card is blocked: a fraud-prevention hold can be lifted, an expiry cannot. */
  blockReason: 'fraud_hold' | 'expired' | null;
  lastDecline: { merchant: string; amount: number; reason: string } | null;
  account_id: string;
}

/** What the customer knows about the matter at hand (the CA's private facts). */
export interface CustomerFacts {
  merchant: string;
  amount: number;
  /** Spoken form of the date: "yesterday", "last Tuesday", "on March 3". */
  datePhrase: string;
  channel: string;
  place: string;
  /** The customer's other account type mentioned in transfers ("savings"). */
  account: AccountType;
  cardLast4: string;
}

export interface WorldState {
  customer: { customer_id: string; name: string; phone: string };
  accounts: Account[];
  cards: Card[];
  facts: CustomerFacts;
  disputes: DisputeChargeResult[];
  transfers: TransferFundsResult[];
  tickets: TransferToHumanResult[];
  verified: boolean;
}

export const MERCHANTS = [
  'Blue Bottle Coffee',
  'AMZN MKTP',
  'Shell',
  "Trader Joe's",
  'Uber',
  'Netflix',
  'Spotify',
  'Walgreens',
  'Target',
  'Chipotle',
  'Apple.com',
  'Delta Air Lines',
  'Best Buy',
  'Whole Foods',
  'Lyft',
  'Home Depot',
];
export const ODD_MERCHANTS = ['PAYPAL *XKQ ONLINE', 'SQ *GRN VALLEY', 'TST* HARBOR 22', 'NTFLX EU 4471', 'WL*STEAM PURCHASE', 'GOOGLE *SVCS 8822'];
export const CHANNELS: TransactionView['channel'][] = ['card', 'online', 'contactless'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function isoDaysAgo(days: number): string {
  const d = new Date(`${WORLD_TODAY}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

/** How a customer would say the date of something `days` ago. */
export function datePhrase(days: number): string {
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  const d = new Date(`${isoDaysAgo(days)}T12:00:00Z`);
  if (days < 7) return `last ${WEEKDAYS[d.getUTCDay()]}`;
  return `on ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Build the account state a scenario asks for, deterministically from `rng`. */
export function generateWorld(scenario: Scenario, rng: Rng): WorldState {
  faker.seed(rng.int(0, 0x7fffffff));
  const id = (prefix: string) => `${prefix}_${rng.int(0x10000000, 0x7fffffff).toString(36)}`;
  const fakerName = faker.person.fullName();
  const name = scenario.persona?.name ?? fakerName;
  const phone = `+1 555 ${String(rng.int(100, 999))} ${String(rng.int(1000, 9999))}`;
  const checking: Account = { account_id: id('acc'), type: 'checking', balance: round2(rng.int(80_000, 900_000) / 100), transactions: [] };
  const savings: Account = { account_id: id('acc'), type: 'savings', balance: round2(rng.int(100_000, 2_500_000) / 100), transactions: [] };
  const last4 = String(rng.int(1000, 9999));
  const card: Card = {
    card_id: id('card'),
    last4,
    status: 'active',
    blockReason: null,
    lastDecline: null,
    account_id: checking.account_id,
  };

  const spec = scenario.account;
  const daysAgo = spec.daysAgo ?? rng.int(1, 9);
  const amount = spec.amount ?? round2(rng.int(900, 25_000) / 100);
  const focalMerchant =
    spec.merchant ?? (spec.situation === 'unknown_merchant' || spec.situation === 'compromised' ? rng.pick(ODD_MERCHANTS) : rng.pick(MERCHANTS));
  const channel = rng.pick(CHANNELS);
  const focal: TransactionView = {
    transaction_id: id('txn'),
    date: isoDaysAgo(daysAgo),
    merchant: focalMerchant,
    amount,
    direction: 'debit',
    status: 'posted',
    channel,
  };

  // Background activity: five ordinary recent card transactions, never from the merchant at issue.
  const background: TransactionView[] = [];
  for (let i = 0; i < 5; i++) {
    background.push({
      transaction_id: id('txn'),
      date: isoDaysAgo(1 + i * 2 + rng.int(0, 1)),
      merchant: rng.pick(MERCHANTS.filter((m) => m !== focalMerchant)),
      amount: round2(rng.int(300, 12_000) / 100),
      direction: 'debit',
      status: 'posted',
      channel: rng.pick(CHANNELS),
    });
  }

  const txns = [...background];
  switch (spec.situation) {
    case 'unrecognized_charge':
    case 'unknown_merchant':
    case 'recent_activity':
      txns.push(focal);
      break;
    case 'duplicate_charge':
      txns.push(focal, { ...focal, transaction_id: id('txn') });
      break;
    case 'refund_missing':
      // The purchase posted; the promised refund never arrived (no credit in the history).
      txns.push({ ...focal, date: isoDaysAgo(daysAgo + 10) });
      break;
    case 'card_declined':
      card.status = spec.cardStatus ?? 'blocked';
      card.blockReason = card.status === 'expired' ? 'expired' : 'fraud_hold';
      card.lastDecline = { merchant: focalMerchant, amount, reason: card.status === 'expired' ? 'card expired' : 'fraud-prevention hold' };
      break;
    case 'compromised':
      // A charge the fraudster made.
      txns.push(focal);
      break;
    case 'internal_transfer':
    case 'account_admin':
      break;
  }
  if (spec.cardStatus && spec.situation !== 'card_declined') card.status = spec.cardStatus;
  txns.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  checking.transactions = txns;

  const place = faker.location.city();
  return {
    customer: { customer_id: id('cus'), name, phone },
    accounts: [checking, savings],
    cards: [card],
    facts: { merchant: focalMerchant, amount, datePhrase: datePhrase(daysAgo), channel, place, account: 'savings', cardLast4: last4 },
    disputes: [],
    transfers: [],
    tickets: [],
    verified: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Tool argument schemas: the DA's `tool_args` must match exactly (unknown fields are errors).

const money = z
  .number()
  .positive()
  .max(1_000_000)
  .refine((x) => Math.abs(x * 100 - Math.round(x * 100)) < 1e-6, 'at most 2 decimals');
const idField = z.string().min(1);

export const toolArgSchemas = {
  lookup_account: z.strictObject({ phone: z.string().min(1) }),
  get_transactions: z.strictObject({ account_id: idField, limit: z.number().int().min(1).max(5).optional() }),
  dispute_charge: z.strictObject({
    account_id: idField,
    transaction_id: idField.optional(),
    merchant: z.string().min(1).optional(),
    amount: money.optional(),
    reason: z.enum(['unrecognized', 'duplicate', 'refund_missing', 'not_received', 'other']),
  }),
  check_card_status: z.strictObject({ card_id: idField, unblock: z.boolean().optional() }),
  transfer_funds: z.strictObject({ from_account_id: idField, to_account_id: idField, amount: money }),
  transfer_to_human: z.strictObject({
    reason: z.string().min(1),
    department: z.enum(['fraud', 'cards', 'accounts', 'general']).optional(),
  }),
} satisfies { [K in keyof ToolArgs]: z.ZodType<ToolArgs[K]> };

class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const normalise = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const digits = (s: string) => s.replace(/\D/g, '');

function account(state: WorldState, accountId: string): Account {
  const a = state.accounts.find((x) => x.account_id === accountId);
  if (!a) throw new ToolError('NOT_FOUND', `no account ${accountId}`);
  return a;
}

type Handlers = { [K in keyof ToolArgs]: (state: WorldState, args: ToolArgs[K], nextId: (p: string) => string) => ToolResults[K] };

const handlers: Handlers = {
  lookup_account(state, args): LookupAccountResult {
    if (digits(args.phone) !== digits(state.customer.phone)) throw new ToolError('NOT_FOUND', 'no customer with that phone number');
    state.verified = true;
    return {
      customer_id: state.customer.customer_id,
      name: state.customer.name,
      verified: true,
      accounts: state.accounts.map((a) => ({ account_id: a.account_id, type: a.type, balance: a.balance })),
      cards: state.cards.map((c) => ({ card_id: c.card_id, last4: c.last4, status: c.status })),
    };
  },
  get_transactions(state, args): GetTransactionsResult {
    const a = account(state, args.account_id);
    return { account_id: a.account_id, transactions: a.transactions.slice(0, args.limit ?? 5).map((t) => ({ ...t })) };
  },
  dispute_charge(state, args, nextId): DisputeChargeResult {
    const a = account(state, args.account_id);
    let candidates = a.transactions.filter((t) => t.direction === 'debit');
    if (args.transaction_id !== undefined) candidates = candidates.filter((t) => t.transaction_id === args.transaction_id);
    else if (args.merchant === undefined && args.amount === undefined) {
      throw new ToolError('INVALID_ARGUMENTS', 'identify the charge: transaction_id, or merchant and/or amount');
    }
    if (args.merchant !== undefined) {
      const m = normalise(args.merchant);
      candidates = candidates.filter((t) => normalise(t.merchant).includes(m) || m.includes(normalise(t.merchant)));
    }
    if (args.amount !== undefined) candidates = candidates.filter((t) => Math.abs(t.amount - args.amount!) < 0.005);
    // A duplicate dispute targets the later of two identical charges.
    if (
      args.reason === 'duplicate' &&
      candidates.length === 2 &&
      candidates[0]!.merchant === candidates[1]!.merchant &&
      candidates[0]!.amount === candidates[1]!.amount
    ) {
      candidates = [candidates[0]!];
    }
    if (candidates.length === 0) throw new ToolError('NOT_FOUND', 'no matching charge on this account');
    if (candidates.length > 1) throw new ToolError('AMBIGUOUS', `${candidates.length} charges match; give the transaction_id`);
    const t = candidates[0]!;
    if (state.disputes.some((d) => d.transaction_id === t.transaction_id)) throw new ToolError('NOT_ALLOWED', 'this charge is already disputed');
    const result: DisputeChargeResult = {
      dispute_id: nextId('dsp'),
      transaction_id: t.transaction_id,
      merchant: t.merchant,
      amount: t.amount,
      status: 'filed',
      provisional_credit: t.amount <= 500,
    };
    state.disputes.push(result);
    return result;
  },
  check_card_status(state, args): CheckCardStatusResult {
    const c = state.cards.find((x) => x.card_id === args.card_id);
    if (!c) throw new ToolError('NOT_FOUND', `no card ${args.card_id}`);
    let unblocked = false;
    if (args.unblock && c.status === 'blocked' && c.blockReason === 'fraud_hold') {
      c.status = 'active';
      c.blockReason = null;
      unblocked = true;
    }
    return { card_id: c.card_id, last4: c.last4, status: c.status, last_decline: c.lastDecline && { ...c.lastDecline }, unblocked };
  },
  transfer_funds(state, args, nextId): TransferFundsResult {
    if (args.from_account_id === args.to_account_id) throw new ToolError('NOT_ALLOWED', 'source and destination are the same account');
    const from = account(state, args.from_account_id);
    const to = account(state, args.to_account_id);
    if (from.balance < args.amount) throw new ToolError('INSUFFICIENT_FUNDS', `balance ${from.balance.toFixed(2)} is below ${args.amount.toFixed(2)}`);
    from.balance = round2(from.balance - args.amount);
    to.balance = round2(to.balance + args.amount);
    const result: TransferFundsResult = {
      transfer_id: nextId('trf'),
      from_account_id: from.account_id,
      to_account_id: to.account_id,
      amount: args.amount,
      balances: { [from.account_id]: from.balance, [to.account_id]: to.balance },
    };
    state.transfers.push(result);
    return result;
  },
  transfer_to_human(state, args, nextId): TransferToHumanResult {
    const department: Department = args.department ?? 'general';
    const result: TransferToHumanResult = { ticket_id: nextId('tkt'), department, wait_minutes: department === 'fraud' ? 2 : 6 };
    state.tickets.push(result);
    return result;
  },
};

/** Tools a customer must be verified for (escalation to a person is always possible). */
export const NEEDS_VERIFICATION = new Set(['get_transactions', 'dispute_charge', 'check_card_status', 'transfer_funds']);

/** The error a call gets before it reaches the tool (unknown tool, bad arguments, not verified), or null. */
export function refuseCall(state: WorldState, tool: string, args: Record<string, unknown>): ToolResult | null {
  if (!isToolName(tool)) return { ok: false, tool, error: { code: 'UNKNOWN_TOOL', message: `no tool named "${tool}"` } };
  const parsed = toolArgSchemas[tool].safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : '(arguments)';
    return { ok: false, tool, error: { code: 'INVALID_ARGUMENTS', message: `${where}: ${issue.message}` } };
  }
  if (NEEDS_VERIFICATION.has(tool) && !state.verified) {
    return { ok: false, tool, error: { code: 'NOT_VERIFIED', message: 'verify the customer with lookup_account first' } };
  }
  return null;
}

/**
 * Run one tool call against the world. Never throws for bad DA input: an unknown tool, invalid
 * arguments or a refused operation come back as a typed error result.
 */
export function executeTool(state: WorldState, tool: string, args: Record<string, unknown>, rng: Rng): ToolResult {
  const refused = refuseCall(state, tool, args);
  if (refused) return refused;
  const parsed = toolArgSchemas[tool as keyof typeof toolArgSchemas].safeParse(args);
  const nextId = (p: string) => `${p}_${rng.int(0x10000000, 0x7fffffff).toString(36)}`;
  try {
    const handler = handlers[tool as keyof Handlers] as (s: WorldState, a: unknown, n: (p: string) => string) => object;
    return { ok: true, tool, data: handler(state, parsed.data, nextId) as Record<string, unknown> };
  } catch (e) {
    if (e instanceof ToolError) return { ok: false, tool, error: { code: e.code, message: e.message } };
    throw e;
  }
}
