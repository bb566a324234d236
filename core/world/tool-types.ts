/**
 * Typed arguments and results of the six banking tools. The DA sees only what these return; the
 * judge checks every fact the DA states against them.
 *
 * Identity: the DA's first observation carries the caller's phone number (caller ID);
 * `lookup_account` with that number verifies the customer and returns the account and card ids
 * the domain tools need.
 */

export type AccountType = 'checking' | 'savings';
export type CardStatus = 'active' | 'blocked' | 'frozen' | 'expired';
export type TransactionStatus = 'posted' | 'pending' | 'refund_pending';
export type DisputeReason = 'unrecognized' | 'duplicate' | 'refund_missing' | 'not_received' | 'other';
export type Department = 'fraud' | 'cards' | 'accounts' | 'general';

export interface LookupAccountArgs {
  phone: string;
}
export interface LookupAccountResult {
  customer_id: string;
  name: string;
  verified: true;
  accounts: { account_id: string; type: AccountType; balance: number }[];
  cards: { card_id: string; last4: string; status: CardStatus }[];
}

export interface GetTransactionsArgs {
  account_id: string;
  /** 1–5, default 5 (the DA system prompt's "last 5 transactions"). */
  limit?: number;
}
export interface TransactionView {
  transaction_id: string;
  /** ISO date, YYYY-MM-DD. */
  date: string;
  merchant: string;
  /** Positive amount in dollars; `direction` says which way it went. */
  amount: number;
  direction: 'debit' | 'credit';
  status: TransactionStatus;
  channel: 'card' | 'online' | 'contactless' | 'atm' | 'transfer';
}
export interface GetTransactionsResult {
  account_id: string;
  transactions: TransactionView[];
}

/** Identify the charge by id, or by merchant and/or amount (must match exactly one transaction). */
export interface DisputeChargeArgs {
  account_id: string;
  transaction_id?: string;
  merchant?: string;
  amount?: number;
  reason: DisputeReason;
}
export interface DisputeChargeResult {
  dispute_id: string;
  transaction_id: string;
  merchant: string;
  amount: number;
  status: 'filed';
  provisional_credit: boolean;
}

export interface CheckCardStatusArgs {
  card_id: string;
  /** Lift a block caused by a fraud-prevention hold (not an expiry). */
  unblock?: boolean;
}
export interface CheckCardStatusResult {
  card_id: string;
  last4: string;
  status: CardStatus;
  last_decline: { merchant: string; amount: number; reason: string } | null;
  unblocked: boolean;
}

export interface TransferFundsArgs {
  from_account_id: string;
  to_account_id: string;
  amount: number;
}
export interface TransferFundsResult {
  transfer_id: string;
  from_account_id: string;
  to_account_id: string;
  amount: number;
  balances: Record<string, number>;
}

export interface TransferToHumanArgs {
  reason: string;
  department?: Department;
}
export interface TransferToHumanResult {
  ticket_id: string;
  department: Department;
  wait_minutes: number;
}

export interface ToolArgs {
  lookup_account: LookupAccountArgs;
  get_transactions: GetTransactionsArgs;
  dispute_charge: DisputeChargeArgs;
  check_card_status: CheckCardStatusArgs;
  transfer_funds: TransferFundsArgs;
  transfer_to_human: TransferToHumanArgs;
}
export interface ToolResults {
  lookup_account: LookupAccountResult;
  get_transactions: GetTransactionsResult;
  dispute_charge: DisputeChargeResult;
  check_card_status: CheckCardStatusResult;
  transfer_funds: TransferFundsResult;
  transfer_to_human: TransferToHumanResult;
}
