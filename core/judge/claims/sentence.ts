/** One sentence of a customer-facing message, as every claim check sees it. */
import type { DomainTool } from '../../domain/types';
import type { ClaimKind, Compiled } from '../config';
import type { Evidence } from './evidence';
import { findAmounts, isQuestion } from './text';

export type Push = (kind: ClaimKind, claim: string, reason: string, about?: readonly DomainTool[]) => void;

export interface Sentence {
  /** The sentence, quotes normalised. */
  s: string;
  lower: string;
  /** Ends with a question mark: statuses, actions and promises in it are not asserted. */
  question: boolean;
  /** In the end_call message (nothing can follow it). */
  isEnd: boolean;
  /** Every dollar amount in it. */
  amounts: ReturnType<typeof findAmounts>;
  ev: Evidence;
  c: Compiled;
  /** Tools the agent called after this message (for promises). */
  laterCalls: ReadonlySet<string>;
  /** Report an unsupported claim. */
  push: Push;
  /** The claims already reported in this sentence. */
  claimed: string[];
  /** Spans already read as an action or promise claim (a later check skips them). */
  seen: [number, number][];
  /** State a message carries from sentence to sentence (what "it" refers to). */
  message: MessageState;
}

export interface MessageState {
  /** The transactions the last sentence that named any (by amount or merchant) named. */
  namedTxns: Record<string, unknown>[];
  /** Supported amounts stated so far in the message, in cents (a stated total may be their sum). */
  stated: number[];
  /** The last sentence was about a card, so "it" in this one may be the card ("It's expired"). */
  aboutCard: boolean;
}

export function overlaps(x: Sentence, a: number, b: number): boolean {
  return x.seen.some(([p, q]) => a < q && b > p);
}

export function sentenceOf(s: string, isEnd: boolean, ev: Evidence, c: Compiled, laterCalls: ReadonlySet<string>, message: MessageState, push: Push): Sentence {
  const claimed: string[] = [];
  return {
    s,
    lower: s.toLowerCase(),
    question: isQuestion(s),
    isEnd,
    amounts: findAmounts(s),
    ev,
    c,
    laterCalls,
    claimed,
    seen: [],
    message,
    push: (kind, claim, reason, about) => {
      claimed.push(claim);
      push(kind, claim, reason, about);
    },
  };
}
