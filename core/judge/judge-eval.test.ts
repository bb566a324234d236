import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JudgeSetError, evaluateJudge, parseJudgeSet, validateJudgeSet } from './judge-eval';
import { DISPUTE_OK, LOOKUP, customer, end, ok, say, transcript } from '../../test/support/judge-fixtures';

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
