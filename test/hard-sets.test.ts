/**
 * The hard banking judge sets of issue 55 item 3 (assets/judge/hard-dev.json and hard-test.json,
 * written blind to core/judge, see assets/judge/README.md). They parse as labelled sets, label
 * every conversation claim by claim, keep the development and test parts disjoint, and hold every
 * kind of claim, true and false, and the impossible requests in both parts, so that a judge tuned
 * on the development part is read on the test part for the same kinds of case.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJudgeSet } from '../core/judge/judge-eval';
import { parseDaOutput } from '../core/wire';

const DIR = path.join(__dirname, '..', 'assets', 'judge');

interface Claim {
  turn: number;
  kind: string;
  claim: string;
  hallucination: boolean;
}
interface RawTurn {
  role: 'customer' | 'agent';
  raw?: string;
  action?: { action_type: string; content: string } | null;
}
interface RawConversation {
  id: string;
  transcript: { turns: RawTurn[]; impossible?: unknown };
  labels: { resolved: boolean; tier: number; hallucination: boolean; claims?: Claim[] };
}
interface RawSet {
  about?: string;
  conversations: RawConversation[];
}

function load(name: string): RawSet {
  const file = path.join(DIR, name);
  const text = readFileSync(file, 'utf8');
  const parsed = parseJudgeSet(text, `assets/judge/${name}`);
  const raw = JSON.parse(text) as RawSet;
  expect(parsed.conversations).toHaveLength(raw.conversations.length);
  return raw;
}

const dev = load('hard-dev.json');
const test = load('hard-test.json');
const parts = [
  ['hard-dev.json', dev],
  ['hard-test.json', test],
] as const;

const kinds = (set: RawSet, hallucination: boolean) =>
  new Set(set.conversations.flatMap((c) => (c.labels.claims ?? []).filter((k) => k.hallucination === hallucination).map((k) => k.kind)));

describe('hard judge sets (issue 55 item 3)', () => {
  it('hold at least 60 conversations, about 40% of them in the test part, each file saying how it was written', () => {
    const total = dev.conversations.length + test.conversations.length;
    expect(total).toBeGreaterThanOrEqual(60);
    expect(test.conversations.length / total).toBeGreaterThan(0.35);
    expect(test.conversations.length / total).toBeLessThan(0.45);
    for (const [, set] of parts) expect(set.about).toMatch(/core\/judge/);
  });

  it('label every conversation claim by claim: each claim is in its agent turn, and hallucination is true exactly when a false claim is listed', () => {
    for (const [name, set] of parts) {
      for (const c of set.conversations) {
        const where = `${name} ${c.id}`;
        expect(c.labels.claims?.length, where).toBeGreaterThan(0);
        for (const k of c.labels.claims!) {
          const turn = c.transcript.turns[k.turn];
          expect(turn?.role, `${where} turn ${k.turn}`).toBe('agent');
          expect(['speak', 'end_call'], `${where} turn ${k.turn}`).toContain(turn!.action?.action_type);
          expect(turn!.action!.content, `${where} turn ${k.turn}`).toContain(k.claim);
        }
        expect(c.labels.hallucination, where).toBe(c.labels.claims!.some((k) => k.hallucination));
        for (const t of c.transcript.turns) {
          if (t.role !== 'agent') continue;
          const p = parseDaOutput(t.raw!);
          if (t.action === null) expect(p.ok, where).toBe(false);
          else expect(p.ok && p.action, where).toEqual(t.action);
        }
      }
    }
  });

  it('keep the development and test parts disjoint: no id and no transcript in both', () => {
    const devIds = new Set(dev.conversations.map((c) => c.id));
    const devTranscripts = new Set(dev.conversations.map((c) => JSON.stringify(c.transcript)));
    for (const c of test.conversations) {
      expect(devIds.has(c.id), c.id).toBe(false);
      expect(devTranscripts.has(JSON.stringify(c.transcript)), c.id).toBe(false);
    }
  });

  it('hold every kind of claim, true and false, and impossible requests in both parts', () => {
    for (const hallucination of [true, false]) {
      const union = new Set([...kinds(dev, hallucination), ...kinds(test, hallucination)]);
      expect(union.size).toBeGreaterThan(5);
      for (const [name, set] of parts) expect([...kinds(set, hallucination)].sort(), `${name}, hallucination ${hallucination}`).toEqual([...union].sort());
    }
    for (const [name, set] of parts) {
      const impossible = set.conversations.filter((c) => c.transcript.impossible !== undefined);
      expect(impossible.filter((c) => c.labels.resolved).length, name).toBeGreaterThan(0);
      expect(impossible.filter((c) => !c.labels.resolved && c.labels.hallucination).length, name).toBeGreaterThan(0);
    }
  });
});
