import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import { fakeEpisode, fakeMatch } from '../../test/support/store-contract';
import type { EpisodeSummary } from '../store/port';
import { cohenKappa } from './agreement';
import { auditConsensus, auditReport, plurality, tacticReport } from './reports';
import type { TacticItemInput } from './reports';
import { sampleQueue } from './sample';
import { classifyTactic, tacticFeatures } from './tactic-classifier';
import { DEFAULT_TACTIC_LABELS } from './types';

describe('sampleQueue', () => {
  const candidates = ['M1', 'M2'].flatMap((matchId) =>
    ['a', 'b', 'c'].flatMap((scenarioId) => Array.from({ length: 6 }, (_, k) => ({ matchId, scenarioId, episodeId: `${matchId}:${scenarioId}${k}` }))),
  );

  it('takes n per match spread evenly over scenarios, the same for the same seed', () => {
    const q = sampleQueue(candidates, 7, 3);
    expect(q).toHaveLength(14);
    for (const m of ['M1', 'M2']) {
      const per = ['a', 'b', 'c'].map((s) => q.filter((c) => c.matchId === m && c.scenarioId === s).length);
      expect(per.reduce((a, b) => a + b)).toBe(7);
      expect(Math.max(...per) - Math.min(...per)).toBeLessThanOrEqual(1);
    }
    expect(new Set(q.map((c) => c.episodeId)).size).toBe(14);
    expect(sampleQueue(candidates, 7, 3)).toEqual(q);
    expect(sampleQueue(candidates, 7, 4)).not.toEqual(q);
  });

  it('mixes the matches in the queue order and takes everything when n exceeds a match', () => {
    const q = sampleQueue(candidates, 100, 1);
    expect(q).toHaveLength(36);
    const firstHalf = q.slice(0, 18).map((c) => c.matchId);
    expect(new Set(firstHalf).size).toBe(2);
    expect(() => sampleQueue(candidates, 0, 1)).toThrow(/positive integer/);
  });
});

describe('classifyTactic', () => {
  const label = (text: string, tool: Parameters<typeof tacticFeatures>[1]) => classifyTactic(tacticFeatures(text, tool));
  it('reads each rule off the measures', () => {
    expect(label('My card was declined at the shop.', 'check_card_status')).toBe('Direct intent');
    expect(label('Something is off with my account, can you look?', 'check_card_status')).toBe('Vague/indirect');
    expect(label('This is urgent, my card was declined!!', 'check_card_status')).toBe('Emotional pressure');
    expect(label('My card was declined, and also I want a refund.', 'check_card_status')).toBe('Multi-intent');
    expect(
      label(
        'Yesterday I paid $42.10 at Blue Bottle Coffee in Oakland online and then on March 3rd something about my card went strange when I tried again',
        'check_card_status',
      ),
    ).toBe('Contextual camouflage');
  });
});

describe('tacticReport', () => {
  const L = [...DEFAULT_TACTIC_LABELS];
  const item = (pos: number, matchId: string, labels: Record<string, string>): TacticItemInput => ({
    pos,
    matchId,
    caSpec: matchId === 'M1' ? 'CA0' : 'CA1',
    text: 'My card was declined.',
    expectedTool: 'check_card_status',
    labels,
  });
  const items = [
    item(0, 'M1', { ann: L[0]!, bo: L[0]! }),
    item(1, 'M1', { ann: L[1]!, bo: L[0]! }),
    item(2, 'M2', { ann: L[2]!, bo: L[2]! }),
    item(3, 'M2', { ann: L[2]! }),
  ];

  it('gives Table 5 shares per match, each item voting with weight one', () => {
    const r = tacticReport('Q1', L, ['ann', 'bo'], items);
    const m1 = r.perMatch.find((m) => m.matchId === 'M1')!;
    expect(m1.items).toBe(2);
    expect(m1.shares[L[0]!]).toBeCloseTo(0.75, 12);
    expect(m1.shares[L[1]!]).toBeCloseTo(0.25, 12);
    expect(r.perMatch.find((m) => m.matchId === 'M2')!.shares[L[2]!]).toBeCloseTo(1, 12);
    expect(r.items.map((i) => i.consensus)).toEqual([L[0], null, L[2], L[2]]);
  });

  it("reports Cohen's κ over the items both labelled, with its n", () => {
    const r = tacticReport('Q1', L, ['ann', 'bo'], items);
    expect(r.agreement.pairs).toHaveLength(1);
    expect(r.agreement.pairs[0]!.n).toBe(3);
    expect(r.agreement.pairs[0]!.value).toBeCloseTo(cohenKappa([L[0], L[1], L[2]], [L[0], L[0], L[2]]), 12);
    expect(r.agreement.fleiss!.n).toBe(3);
    expect(r.agreement.alpha!.n).toBe(3);
    expect(r.auto.perAnnotator.map((a) => a.annotator)).toEqual(['ann', 'bo']);
  });
});

describe('auditReport', () => {
  it('takes majority yes/no and the stricter middle tier, none on a tie', () => {
    expect(
      auditConsensus([
        { resolved: true, tier: 4, hallucination: false },
        { resolved: true, tier: 3, hallucination: false },
      ]),
    ).toEqual({ resolved: true, tier: 3, hallucination: false });
    expect(
      auditConsensus([
        { resolved: true, tier: 4, hallucination: false },
        { resolved: false, tier: 3, hallucination: false },
      ]),
    ).toBeNull();
    expect(auditConsensus([])).toBeNull();
  });

  /** A match whose 10 CA-winnable episodes are all routed right and judged resolved. */
  function match(id: string, createdAt: string) {
    const { match } = fakeMatch(id, { createdAt });
    const episodes: EpisodeSummary[] = Array.from({ length: 10 }, (_, i) => {
      const e = fakeEpisode(id, i, { scenarioId: 'card_lost' });
      return { ...e, routedTool: e.expectedTool, judge: { ...e.judge, resolved: true, tier: 4, hallucination: false } };
    });
    return { match, episodes };
  }

  it('scores the judge against the consensus and says when correcting it moves W_DA past ε or flips the stop', () => {
    const ms = [match('M1', '2025-01-01'), match('M2', '2025-01-02'), match('M3', '2025-01-03')];
    // The people say 3 of M3's episodes were not resolved and one had a hallucination.
    const items = [0, 1, 2, 3].map((i) => ({
      pos: i,
      episode: ms[2]!.episodes[i]!,
      /* eslint-disable @typescript-eslint/no-unnecessary-type-assertion -- without them the tiers widen to number in this object literal and auditReport's AuditValue rejects it (tsc) */
      labels: {
        ann: { resolved: i === 3, tier: (i === 3 ? 4 : 2) as 2 | 4, hallucination: i === 0 },
        bo: { resolved: i === 3, tier: (i === 3 ? 4 : 1) as 1 | 4, hallucination: i === 0 },
      },
      /* eslint-enable @typescript-eslint/no-unnecessary-type-assertion */
    }));
    const r = auditReport('Q2', ['ann', 'bo'], items, ms, DEFAULT_CONFIG.stopping);
    expect(r.n).toBe(4);
    // Judge says resolved on all 4; people on 1: tp 1, fp 3.
    expect(r.resolution.confusion).toEqual({ tp: 1, fp: 3, fn: 0, tn: 0 });
    expect(r.resolution.f1).toBeCloseTo(2 / 5, 12);
    expect(r.hallucination.confusion).toEqual({ tp: 0, fp: 0, fn: 1, tn: 3 });
    expect(r.tierSpearman).toBeNull(); // the judge's tiers are constant
    expect(r.disagreements.filter((d) => d.field === 'resolved').map((d) => d.pos)).toEqual([0, 1, 2]);

    const [m1, , m3] = r.perMatch;
    expect(m1).toMatchObject({ wJudge: 1, wHuman: 1, exceedsEpsilon: false, flips: false, audited: 0 });
    // M3: 10 winnable episodes, 3 lose their resolution: W 1.0 → 0.7, |δ| 0.3 > ε; the judge's
    // series stops at match 3 (converged), the corrected one fails the stability gate.
    expect(m3!.wHuman).toBeCloseTo(0.7, 12);
    expect(m3).toMatchObject({ audited: 4, exceedsEpsilon: true, flips: true });
    expect(m3!.stopJudge!.stop).toBe(true);
    expect(m3!.stopHuman!.stop).toBe(false);
  });

  it('leaves tied items out of the scores and counts them', () => {
    const ms = [match('M1', '2025-01-01')];
    const items = [
      {
        pos: 0,
        episode: ms[0]!.episodes[0]!,
        labels: { ann: { resolved: true, tier: 4 as const, hallucination: false }, bo: { resolved: false, tier: 4 as const, hallucination: false } },
      },
    ];
    const r = auditReport('Q', ['ann', 'bo'], items, ms, DEFAULT_CONFIG.stopping);
    expect(r).toMatchObject({ n: 0, tied: 1 });
  });
});

describe('plurality', () => {
  it('is null on ties', () => {
    expect(plurality(['a', 'b'])).toBeNull();
    expect(plurality(['a', 'b', 'a'])).toBe('a');
  });
});
