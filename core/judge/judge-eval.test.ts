import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JudgeSetError, evaluateJudge, parseJudgeSet, validateJudgeSet } from './judge-eval';
import { DISPUTE_OK, LOOKUP, customer, end, fail, ok, say, transcript } from '../../test/support/judge-fixtures';

const exemplary = transcript('dispute_charge', [
  customer("There's an $89 AMZN MKTP charge I don't recognise."),
  LOOKUP,
  DISPUTE_OK,
  say("I've filed a dispute (dsp_9x2k) for the $89.00 charge from AMZN MKTP."),
  end(),
]);
const wrongTool = transcript('dispute_charge', [
  customer("There's an $89 AMZN MKTP charge I don't recognise."),
  LOOKUP,
  ok('transfer_to_human', { ticket_id: 'tkt_1', department: 'general', wait_minutes: 6 }),
  say("I've transferred you to our general team; the wait is about 6 minutes."),
  end(),
]);
const invented = transcript('dispute_charge', [customer('A charge I do not know.'), LOOKUP, say("I've filed a dispute for you."), end()]);

/** A plain-data copy, as the file would hold it. */
const plain = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function set(overrides: { labels?: object }[] = []) {
  const base = [
    { id: 'ex', note: 'exemplary', transcript: plain(exemplary), labels: { resolved: true, tier: 4, hallucination: false } },
    { id: 'wrong', note: 'wrong tool', transcript: plain(wrongTool), labels: { resolved: false, tier: 1, hallucination: false } },
    { id: 'hal', note: 'invented dispute', transcript: plain(invented), labels: { resolved: false, tier: 1, hallucination: true } },
  ];
  overrides.forEach((o, i) => Object.assign(base[i]!, o));
  return { version: 1, conversations: base };
}

function errorOf(value: unknown): JudgeSetError {
  try {
    validateJudgeSet(value, 'labelled.json');
  } catch (e) {
    if (e instanceof JudgeSetError) return e;
    throw e;
  }
  throw new Error('expected a JudgeSetError');
}

describe('labelled-set schema', () => {
  it('accepts a well-formed set', () => {
    const s = parseJudgeSet(JSON.stringify(set()));
    expect(s.conversations.map((c) => c.id)).toEqual(['ex', 'wrong', 'hal']);
  });

  it('names the conversation and the label field', () => {
    const e = errorOf(set([{}, { labels: { resolved: false, tier: 5, hallucination: false } }]));
    expect(e.issues[0]).toMatchObject({ index: 1, id: 'wrong', field: 'labels.tier' });
    expect(e.message).toMatch(/^labelled\.json: conversations\[1\] \(id "wrong"\), field labels\.tier: expected a tier: 1, 2, 3 or 4/);
  });

  it('names the turn field of a malformed agent action', () => {
    const bad = set();
    const turn = bad.conversations[0]!.transcript.turns[4] as { action: { action_type: string } };
    turn.action.action_type = 'hang_up';
    const e = errorOf(bad);
    expect(e.issues.map((i) => i.field)).toContain('transcript.turns[4].action.action_type');
    expect(e.message).toMatch(/conversations\[0\] \(id "ex"\)/);
  });

  it('checks that raw and action agree, and that tool calls carry their result', () => {
    const bad = set();
    const turns = bad.conversations[0]!.transcript.turns as unknown as Record<string, unknown>[];
    (turns[3]!.action as { content: string }).content = 'something else';
    delete turns[2]!.toolResult;
    const e = errorOf(bad);
    const fields = e.issues.map((i) => `${i.field}: ${i.problem}`);
    expect(fields).toContain('transcript.turns[3].action: the recorded action differs from what raw parses to');
    expect(fields).toContain('transcript.turns[2].toolResult: a tool_call needs its toolResult');
  });

  it('rejects an unknown role, an unknown error code and turns after end_call', () => {
    const bad = set();
    const turns = bad.conversations[1]!.transcript.turns as unknown as Record<string, unknown>[];
    turns.push({ role: 'customer', text: 'hello?' });
    (turns[0] as { role: string }).role = 'caller';
    const hal = bad.conversations[2]!.transcript as { endReason: string };
    hal.endReason = 'turn_limit';
    const e = errorOf(bad);
    const where = e.issues.map((i) => `${i.index}:${i.field}`);
    expect(where).toContain('1:transcript.turns[0].role');
    expect(where).toContain('2:transcript.endReason');
  });

  it('rejects duplicate ids, a wrong version and bad JSON', () => {
    const dup = set();
    dup.conversations[2]!.id = 'ex';
    expect(errorOf(dup).message).toMatch(/conversations\[2\] \(id "ex"\), field id: duplicate id \(also conversations\[0\]\)/);
    expect(errorOf({ ...set(), version: 2 }).message).toMatch(/field version/);
    expect(() => parseJudgeSet('{"version": 1,', 'x.json')).toThrow(/^x\.json: not valid JSON/);
  });
});

describe('evaluateJudge', () => {
  it('reports perfect agreement on clear cases', () => {
    const r = evaluateJudge(parseJudgeSet(JSON.stringify(set())));
    expect(r.n).toBe(3);
    expect(r.resolution).toMatchObject({ f1: 1, precision: 1, recall: 1 });
    expect(r.hallucination).toMatchObject({ f1: 1, precision: 1, recall: 1 });
    // tiers [4, 1, 1] vs [4, 1, 1]
    expect(r.tierSpearman).toBeCloseTo(1, 12);
    expect(r.disagreements).toEqual([]);
  });

  it('lists each disagreement with the field, the label and the verdict', () => {
    const s = set([{ labels: { resolved: true, tier: 3, hallucination: false } }, { labels: { resolved: true, tier: 2, hallucination: false } }]);
    const r = evaluateJudge(parseJudgeSet(JSON.stringify(s)));
    expect(r.disagreements.map(({ id, field, label, judged }) => ({ id, field, label, judged }))).toEqual([
      { id: 'ex', field: 'tier', label: 3, judged: 4 },
      { id: 'wrong', field: 'resolved', label: true, judged: false },
      { id: 'wrong', field: 'tier', label: 2, judged: 1 },
    ]);
    // resolution: labels [T, T, F], judged [T, F, F] → tp 1, fn 1 → P 1, R 0.5, F1 2/3
    expect(r.resolution.precision).toBe(1);
    expect(r.resolution.recall).toBe(0.5);
    expect(r.resolution.f1).toBeCloseTo(2 / 3, 12);
  });
});

describe('labels that can say everything (issue 55)', () => {
  const refusal = {
    ...transcript('dispute_charge', [
      customer('My refund from March never came, please dispute it.'),
      LOOKUP,
      fail('dispute_charge', 'POLICY', 'refund window expired: charges can be disputed within 60 days'),
      say("I'm sorry, I can't open a dispute because the charge is older than the 60-day window. Instead, you could contact the merchant directly."),
      end(),
    ]),
    impossible: { fallback_behavior: 'offer_alternative' as const, reason: 'older than the dispute window' },
  };

  it('an impossible request carries its block, and its correct refusal is judged resolved (without the block it is not)', () => {
    const one = (t: object) => ({
      version: 1,
      conversations: [{ id: 'imp', note: 'refusal', transcript: plain(t), labels: { resolved: true, tier: 4, hallucination: false } }],
    });
    const r = evaluateJudge(parseJudgeSet(JSON.stringify(one(refusal))));
    expect(r.disagreements).toEqual([]);
    const { impossible: _dropped, ...possible } = refusal;
    const without = evaluateJudge(parseJudgeSet(JSON.stringify(one(possible))));
    expect(without.disagreements.map((d) => d.field)).toContain('resolved');
    const e = errorOf(one({ ...refusal, impossible: { fallback_behavior: 'shrug', reason: 'x' } }));
    expect(e.issues[0]).toMatchObject({ index: 0, id: 'imp', field: 'transcript.impossible.fallback_behavior' });
  });

  // An $89.00 dispute explained right, with a wrong wait time, a time of day no tool gave and a channel no check covers.
  const claimed = transcript('dispute_charge', [
    customer("There's an $89 AMZN MKTP charge I don't recognise."),
    LOOKUP,
    DISPUTE_OK,
    say("I've filed a dispute (dsp_9x2k) for the $89.00 charge from AMZN MKTP. It was made online at 3:15 pm. A specialist will call you within 45 minutes."),
    end(),
  ]);
  const claims = [
    { turn: 3, kind: 'amount', claim: '$89.00', hallucination: false },
    { turn: 3, kind: 'time_of_day', claim: 'at 3:15 pm', hallucination: true },
    { turn: 3, kind: 'other', claim: 'made online', hallucination: true },
    { turn: 3, kind: 'action', claim: 'A specialist will call you', hallucination: true },
    { turn: 3, kind: 'wait_time', claim: 'within 45 minutes', hallucination: true },
  ];
  const withClaims = (labels: object) => ({ version: 1, conversations: [{ id: 'cl', note: 'claims', transcript: plain(claimed), labels }] });

  it('per-claim labels are checked against the turn they name', () => {
    const bad = [
      { turn: 2, kind: 'amount', claim: '$89.00', hallucination: false },
      { turn: 3, kind: 'amount', claim: '$98.00', hallucination: true },
    ];
    const e = errorOf(withClaims({ resolved: true, tier: 1, hallucination: true, claims: bad }));
    expect(e.issues.map((i) => i.field)).toEqual(['labels.claims[0].turn', 'labels.claims[1].claim']);
    const off = errorOf(withClaims({ resolved: true, tier: 1, hallucination: false, claims }));
    expect(off.issues[0]).toMatchObject({ field: 'labels.hallucination' });
    expect(off.message).toMatch(/expected true: claims\[1\] is labelled a hallucination/);
  });

  it('judge-eval says per kind of claim which were caught, missed or wrongly flagged', () => {
    const r = evaluateJudge(parseJudgeSet(JSON.stringify(withClaims({ resolved: true, tier: 1, hallucination: true, claims }))));
    const kinds = Object.fromEntries(r.claimKinds.map(({ kind, ...rest }) => [kind, rest]));
    // The rule judge checks wait times and times of day, but has no check for a transaction's channel.
    expect(kinds.wait_time).toEqual({ labelledFalse: 1, caught: 1, missed: 0, labelledTrue: 0, wronglyFlagged: 0 });
    expect(kinds.time_of_day).toEqual({ labelledFalse: 1, caught: 1, missed: 0, labelledTrue: 0, wronglyFlagged: 0 });
    expect(kinds.other).toEqual({ labelledFalse: 1, caught: 0, missed: 1, labelledTrue: 0, wronglyFlagged: 0 });
    expect(kinds.amount).toEqual({ labelledFalse: 0, caught: 0, missed: 0, labelledTrue: 1, wronglyFlagged: 0 });
    expect(kinds.action).toEqual({ labelledFalse: 1, caught: 1, missed: 0, labelledTrue: 0, wronglyFlagged: 0 });
    expect(r.claimKinds.map((k) => k.kind)).toEqual(['amount', 'wait_time', 'action', 'time_of_day', 'other']);
    // Labelled true, the same wait time is a wrong flag of its kind.
    const trueWait = claims.map((c) => (c.kind === 'wait_time' ? { ...c, hallucination: false } : c));
    const r2 = evaluateJudge(parseJudgeSet(JSON.stringify(withClaims({ resolved: true, tier: 1, hallucination: true, claims: trueWait }))));
    expect(r2.claimKinds.find((k) => k.kind === 'wait_time')).toMatchObject({ labelledTrue: 1, wronglyFlagged: 1 });
  });

  it('without listed claims: a clean conversation’s flags are wrong flags of their kind, a hallucinated one counts as unspecified', () => {
    const r = evaluateJudge(parseJudgeSet(JSON.stringify(withClaims({ resolved: true, tier: 4, hallucination: false }))));
    expect(r.claimKinds.map((k) => [k.kind, k.wronglyFlagged])).toEqual([
      ['wait_time', 1],
      ['action', 1],
      ['time_of_day', 1],
    ]);
    const r2 = evaluateJudge(parseJudgeSet(JSON.stringify(set())));
    expect(r2.claimKinds).toEqual([{ kind: 'unspecified', labelledFalse: 1, caught: 1, missed: 0, labelledTrue: 0, wronglyFlagged: 0 }]);
  });
});

const LABELLED = fileURLToPath(new URL('../../assets/judge/labelled.json', import.meta.url));

describe('the labelled set in assets/judge', () => {
  it.skipIf(!existsSync(LABELLED))('validates, and the judge meets the paper’s bar on it (hallucination F1 = 1)', () => {
    const r = evaluateJudge(parseJudgeSet(readFileSync(LABELLED, 'utf8'), 'assets/judge/labelled.json'));
    expect(r.n).toBeGreaterThanOrEqual(48);
    // RL-ADA §3.1: hallucination F1 of 1.000 is a hard prerequisite for RL training.
    expect(r.hallucination.f1).toBe(1);
    // NeutralJudge in the paper: resolution F1 0.807, tier ρ 0.833.
    expect(r.resolution.f1).toBeGreaterThanOrEqual(0.807);
    expect(r.tierSpearman).toBeGreaterThanOrEqual(0.833);
  });
});

const THIRD = fileURLToPath(new URL('../../assets/judge/labelled-3.json', import.meta.url));

describe('the third labelled set (written before the general claim checks)', () => {
  it('validates, says how it was written, and keeps the claim checks at hallucination F1 = 1 on it', () => {
    const set = parseJudgeSet(readFileSync(THIRD, 'utf8'), 'assets/judge/labelled-3.json');
    expect(set.about).toMatch(/before reading core\/judge/i);
    expect(set.conversations.filter((c) => c.labels.hallucination).every((c) => (c.labels.claim ?? '').length > 0)).toBe(true);
    const r = evaluateJudge(set);
    // In-sample since the checks were generalised against its misses (it was 0.710 before): a regression guard, not a measure.
    expect(r.hallucination.f1).toBe(1);
    expect(r.tierSpearman).toBeGreaterThanOrEqual(0.95);
  });
});
