/**
 * Hallucination (RL-ADA §3.1): every factual claim the agent makes to the customer (speak and
 * end_call text, never `thinking` or tool arguments) checked against what the transcript has
 * established by then. One file per claim kind; this runs them sentence by sentence, in order.
 */
import type { Finding, JudgeOptions } from '../config';
import { compile, resolveConfig } from '../config';
import type { Compiled } from '../config';
import type { Transcript } from '../../world/transcript';
import { checkActions, checkDepartment, checkUntooledActions } from './actions';
import { checkAmounts } from './amounts';
import { checkCurrencies } from './currency';
import { checkDates } from './dates';
import { Evidence } from './evidence';
import { checkCardDigits, checkIds, checkNames } from './names';
import { sentenceOf } from './sentence';
import type { MessageState, Sentence } from './sentence';
import { checkCardStatuses, checkProvisionalCredit, checkTxnStatuses } from './statuses';
import { sentences } from './text';
import { toolName } from '../resolution';
import { checkFutureTimes, checkProcessPromises, checkWaitTimes } from './timelines';
import { checkStaleFigures } from './stale';
import { checkTimesOfDay } from './times';
import { checkTogether } from './together';
import { checkWeekdays } from './weekdays';

/** Checks that apply to every sentence, questions included (a question can still carry a fact). */
const FACT_CHECKS: readonly ((x: Sentence) => void)[] = [checkAmounts, checkCurrencies, checkIds, checkCardDigits, checkDates, checkNames, checkWaitTimes];
/** Checks of assertions (skipped in questions). Order matters: actions mark spans that promises skip. */
const ASSERTION_CHECKS: readonly ((x: Sentence) => void)[] = [
  checkCardStatuses,
  checkTxnStatuses,
  checkProvisionalCredit,
  checkActions,
  checkUntooledActions,
  checkProcessPromises,
  checkFutureTimes,
  checkDepartment,
  checkTimesOfDay,
  checkWeekdays,
  checkStaleFigures,
  checkTogether,
];

function checkMessage(text: string, turn: number, isEnd: boolean, ev: Evidence, c: Compiled, laterCalls: ReadonlySet<string>, out: Finding[]): void {
  const message: MessageState = { namedTxns: [], stated: [], aboutCard: false };
  for (const s of sentences(text)) {
    const x = sentenceOf(s, isEnd, ev, c, laterCalls, message, (kind, claim, reason, about = []) => out.push({ turn, kind, claim, reason, about: [...about] }));
    for (const check of FACT_CHECKS) check(x);
    if (x.question) continue;
    for (const check of ASSERTION_CHECKS) check(x);
  }
}

/** Every unsupported claim the DA made to the customer, in turn order. */
export function findHallucinations(t: Transcript, opts?: JudgeOptions): Finding[] {
  const c = compile(resolveConfig(opts));
  const ev = new Evidence();
  const out: Finding[] = [];
  // Tools called after each turn (for promises in speak turns).
  const laterCalls: Set<string>[] = new Array(t.turns.length);
  let acc = new Set<string>();
  for (let i = t.turns.length - 1; i >= 0; i--) {
    laterCalls[i] = acc;
    const turn = t.turns[i]!;
    if (turn.role === 'agent') {
      const name = toolName(turn);
      if (name && !acc.has(name)) acc = new Set(acc).add(name);
    }
  }
  t.turns.forEach((turn, i) => {
    if (turn.role === 'customer') {
      ev.addCustomer(turn.text);
      return;
    }
    const a = turn.action;
    if (a && (a.action_type === 'speak' || a.action_type === 'end_call') && a.content.trim() !== '') {
      checkMessage(a.content, i, a.action_type === 'end_call', ev, c, laterCalls[i]!, out);
    }
    if (turn.toolResult) ev.addResult(turn.toolResult);
  });
  return out;
}
