import { describe, expect, it } from 'vitest';
import { meanInterval, pairedDifference } from '../stats/intervals';
import {
  arenaOnlySummary,
  heldoutEpisodesNote,
  isHeldoutMeasure,
  nonMonotonic,
  studyHosts,
  studyPanelFigures,
  summariseStudy,
  wDaChangeAfter,
} from './study-summary';
import type { StudyPanelFigures, StudyRunData } from './study-summary';
import type { GymSummary, MatchSummary } from './run.machine';

const tactics = { n: 1, meanTokens: 10, meanEntityDensity: 0.1, meanEntities: 1, decoyRate: 0, hedgeRate: 0 };
const match = (index: number, wDa: number, da = 'DA0', ca = 'CA0'): MatchSummary => ({
  matchId: `R-M${index}`,
  index,
  da,
  ca,
  wDa,
  fraudRate: null,
  tactics: { ...tactics, meanTokens: 10 + index },
  stop: { stop: false, reason: null, explanation: '' } as unknown as MatchSummary['stop'],
  next: null,
});
const gymAfter = (afterMatch: number, role: 'DA' | 'CA'): GymSummary => ({ role, from: `${role}0`, to: `${role}1`, afterMatch, note: null });
const heldout = (routingAccuracy: number) => ({
  episodes: 24,
  routingAccuracy,
  strictPass: routingAccuracy / 2,
  fail: 1 - routingAccuracy,
  meanReward: 1,
  lookupFirst: 0.5,
});

describe('nonMonotonic', () => {
  it('W_DA drops after a CA gym and later recovers after a DA gym', () => {
    const ms = [match(1, 0.8), match(2, 0.6), match(3, 0.7)];
    expect(nonMonotonic(ms, [gymAfter(1, 'CA'), gymAfter(2, 'DA')])).toBe(true);
    // Dropped, but the DA gym did not help.
    expect(nonMonotonic([match(1, 0.8), match(2, 0.6), match(3, 0.5)], [gymAfter(1, 'CA'), gymAfter(2, 'DA')])).toBe(false);
    // Rose after a CA gym: no drop.
    expect(nonMonotonic([match(1, 0.6), match(2, 0.7), match(3, 0.8)], [gymAfter(1, 'CA'), gymAfter(2, 'DA')])).toBe(false);
    expect(nonMonotonic([match(1, 0.6)], [])).toBe(false);
  });
});

describe('wDaChangeAfter', () => {
  it('averages W_DA after − before over the gyms of one role, leaving out matches after which both trained', () => {
    const ms = [match(1, 0.7), match(2, 0.6), match(3, 0.5), match(4, 0.9), match(5, 0.8), match(6, 0.85)];
    const gyms = [gymAfter(1, 'CA'), gymAfter(2, 'CA'), gymAfter(3, 'DA'), gymAfter(4, 'CA'), gymAfter(5, 'CA'), gymAfter(5, 'DA')];
    expect(wDaChangeAfter('CA', ms, gyms)).toBeCloseTo((-0.1 - 0.1 - 0.1) / 3, 12);
    expect(wDaChangeAfter('DA', ms, gyms)).toBeCloseTo(0.4, 12);
    // No gym of the role (or none followed by a match): no value.
    expect(wDaChangeAfter('DA', ms.slice(0, 3), gyms.slice(0, 2))).toBeNaN();
    expect(wDaChangeAfter('CA', [match(1, 0.7)], [gymAfter(1, 'CA')])).toBeNaN();
  });
});

describe('summariseStudy', () => {
  /** Two arms on the sleep data's 10 patients as seeds: routing = (drug extra hours) / 10. */
  const drug1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
  const drug2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
  const run = (arm: string, seed: number, routing: number, status: StudyRunData['status'] = 'finished'): StudyRunData => ({
    arm,
    seed,
    runId: `R${seed}`,
    status,
    error: null,
    matches: [match(1, 0.8), match(2, 0.6, 'DA0', 'CA1'), match(3, 0.7, 'DA1', 'CA1')],
    gyms: [gymAfter(1, 'CA'), gymAfter(2, 'DA')],
    evaluation: {
      checkpoints: [
        { da: 'DA0', ca: 'CA1', heldout: heldout(0.5) },
        { da: 'DA1', ca: 'CA1', heldout: heldout(routing), reference: { ca: 'scripted', heldout: heldout(routing) } },
      ],
    },
  });
  const runs = [
    ...drug2.map((v, i) => run('full', i + 1, v / 10)),
    ...drug1.map((v, i) => run('no-isolation', i + 1, v / 10)),
    run('no-isolation', 11, 0.9, 'failed'),
  ];
  const s = summariseStudy(['full', 'no-isolation'], runs);

  it("says what each run's held-out figures rest on: the finished runs' episode counts, each once", () => {
    expect(s.heldoutEpisodes).toEqual([24]);
    expect(heldoutEpisodesNote(s)).toBe("Each run's held-out figures: 24 episodes per DA and opponent.");
    // Another run evaluated on 192 (its scripted-CA reference still on 24); a failed run's figures do not count.
    const withEpisodes = (r: StudyRunData, episodes: number): StudyRunData => ({
      ...r,
      evaluation: { checkpoints: r.evaluation!.checkpoints.map((c) => ({ ...c, heldout: { ...c.heldout, episodes } })) },
    });
    const mixed = summariseStudy(['full'], [run('full', 1, 0.5), withEpisodes(run('full', 2, 0.5), 192), withEpisodes(run('full', 3, 0.5, 'failed'), 7)]);
    expect(mixed.heldoutEpisodes).toEqual([24, 192]);
    expect(heldoutEpisodesNote(mixed)).toBe("Each run's held-out figures: 24 or 192 episodes per DA and opponent.");
    expect(heldoutEpisodesNote(summariseStudy(['full'], []))).toBe('');
  });

  it("per arm: mean and t interval over the finished seeds; final DA is the last match's DA, DA0 the first's", () => {
    const full = s.arms[0]!;
    expect(full.seeds).toEqual({ total: 10, finished: 10, failed: 0 });
    expect(full.measures['final.routing']!.mean).toBeCloseTo(0.233, 10);
    expect(full.measures['da0.routing']!.mean).toBe(0.5);
    expect(full.measures['gain.routing']!.mean).toBeCloseTo(0.233 - 0.5, 10);
    expect(full.measures.daGyms!.mean).toBe(1);
    expect(full.daTrained).toMatchObject({ k: 10, n: 10 });
    expect(full.nonMonotonic).toMatchObject({ k: 10, n: 10 });
    expect(full.wDa.map((w) => w.mean)).toEqual([0.8, 0.6, 0.7]);
    expect(full.tactics.tokens.map((t) => t.mean)).toEqual([11, 12, 13]);
    expect(full.tacticDirection.tokens).toEqual({ up: 10, down: 0, n: 10 });
    expect(full.tacticDirection.entityDensity).toEqual({ up: 0, down: 0, n: 10 });
    expect(s.arms[1]!.seeds).toEqual({ total: 11, finished: 10, failed: 1 });
  });

  it('counts (matches, gyms) keep their intervals at or above 0', () => {
    // DA gyms 0, 0, 2 on three seeds: mean 0.67, t interval [−2.2, 3.5] before the bound.
    const withDaGyms = (seed: number, n: number): StudyRunData => ({
      ...run('full', seed, 0.5),
      gyms: Array.from({ length: n }, (_, i) => gymAfter(i + 1, 'DA')),
    });
    const c = summariseStudy(['full'], [withDaGyms(1, 0), withDaGyms(2, 0), withDaGyms(3, 2)]).arms[0]!.measures.daGyms!;
    expect(c.mean).toBeCloseTo(2 / 3, 12);
    expect(c.ci![0]).toBe(0);
    expect(c.ci![1]).toBeCloseTo(meanInterval([0, 0, 2]).ci![1], 12);
  });

  it('paired differences against full on shared seeds reproduce the sleep data (1.58/10, CI [0.070, 0.246])', () => {
    expect(s.baseline).toBe('full');
    const p = s.paired[0]!;
    expect([p.a, p.b]).toEqual(['no-isolation', 'full']);
    const d = p.measures['final.routing']!;
    expect(d.seeds).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(d.mean).toBeCloseTo(-0.158, 10);
    expect(d.ci![0]).toBeCloseTo(-0.24598858, 6);
    expect(d.ci![1]).toBeCloseTo(-0.07001142, 6);
    // The full arm's final CA: full's own evaluation; another arm without the extra evaluation has none.
    expect(s.arms[0]!.measures['final.fullCa.routing']!.n).toBe(10);
    expect(p.measures['final.fullCa.routing']!.n).toBe(0);
  });

  it('arena only: every held-out and panel figure goes, the run course and the tactics stay as they were', () => {
    const a = arenaOnlySummary(s);
    const keys = (m: Record<string, unknown>) => Object.keys(m).sort();
    expect(keys(a.arms[0]!.measures)).toEqual(['caGyms', 'daGyms', 'finalWDa', 'matches', 'wDaAfterCaGym', 'wDaAfterDaGym']);
    expect(keys(a.paired[0]!.measures)).toEqual(['caGyms', 'daGyms', 'finalWDa', 'matches', 'wDaAfterCaGym', 'wDaAfterDaGym']);
    expect(a.arms.every((x) => x.heldoutScenarios.length === 0)).toBe(true);
    expect(s.arms[0]!.measures['final.routing']).toBeDefined();
    const { measures: _m, heldoutScenarios: _h, ...courseA } = a.arms[0]!;
    const { measures: _n, heldoutScenarios: _i, ...courseS } = s.arms[0]!;
    expect(courseA).toEqual(courseS);
    expect(a.arms[0]!.measures.daGyms).toEqual(s.arms[0]!.measures.daGyms);
    for (const k of ['final.routing', 'da0.strictPass', 'gain.routing', 'final.scripted.fail', 'final.fullCa.routing', 'panel.routing', 'panel.gap.meanReward'])
      expect(isHeldoutMeasure(k), k).toBe(true);
    for (const k of ['matches', 'daGyms', 'finalWDa', 'wDaAfterCaGym']) expect(isHeldoutMeasure(k), k).toBe(false);
  });
});

describe('which tactic the CA converged to', () => {
  const opening = (text: string, daWon: boolean) => ({ text, expectedTool: 'dispute_charge' as const, daWon });
  const plain = 'I want to dispute a charge on my card.';
  const dense = 'On March 3rd at 9pm I paid $42.10 at TESCO in Leeds contactless, then $18 online at AMZN MKTP yesterday.';
  const run = (seed: number, last: ReturnType<typeof opening>[]): StudyRunData => ({
    arm: 'full',
    seed,
    runId: `R${seed}`,
    status: 'finished',
    error: null,
    matches: [match(1, 0.8)],
    gyms: [],
    evaluation: null,
    openings: { first: [opening(plain, true), opening(plain, true)], last },
  });

  it("pools the last match over seeds, counts the seeds that agree, and splits the CA's wins by feature", () => {
    const runs = [
      run(1, [opening(dense, false), opening(dense, true)]),
      run(2, [opening(dense, false), opening(plain, true)]),
      run(3, [opening(plain, true), opening(plain, true)]),
    ];
    const t = summariseStudy(['full'], runs).arms[0]!.tactic!;
    const denseLabel = t.last.find((x) => x.n === 3)!.tactic;
    expect(t.converged!.tactic).toBe(denseLabel);
    expect(t.converged!.share).toBeCloseTo(0.5);
    // CA wins come first among the examples.
    expect(t.converged!.examples[0]).toBe(dense);
    // Seed 1's last match is all dense; seed 2's is a tie broken by label order; seed 3's is plain.
    expect(t.seedsAgreeing.n).toBe(3);
    expect(t.seedsAgreeing.k).toBeGreaterThanOrEqual(1);
    expect(t.seedsAgreeing.k).toBeLessThanOrEqual(2);
    expect(t.first).toHaveLength(1);
    const denseSplit = t.splits.find((s) => s.feature.startsWith('dense detail'))!;
    expect(denseSplit.withN).toBe(3);
    expect(denseSplit.withCaWin).toBeCloseTo(2 / 3);
    expect(denseSplit.withoutCaWin).toBe(0);
    // The first match's splits, from the first match's openings (all plain, all the DA's).
    const firstDense = t.firstSplits.find((s) => s.feature.startsWith('dense detail'))!;
    expect([firstDense.withN, firstDense.withoutN, firstDense.withCaWin, firstDense.withoutCaWin]).toEqual([0, 6, null, 0]);
  });

  it("is absent when no run's openings were read", () => {
    expect(summariseStudy(['full'], [{ ...run(1, []), openings: undefined }]).arms[0]!.tactic).toBeNull();
  });
});

describe('summariseStudy: panel figures (counterpart shift)', () => {
  const figures = (panelRouting: number, trainingRouting: number): StudyPanelFigures => ({
    da: 'DA1',
    counterparts: ['scripted', 'ca:CA9'],
    panel: { routing: panelRouting, strictPass: panelRouting / 2, meanReward: 3 },
    training: { routing: trainingRouting, strictPass: trainingRouting / 2, meanReward: 5 },
    gap: { routing: trainingRouting - panelRouting, strictPass: (trainingRouting - panelRouting) / 2, meanReward: 2 },
  });
  const run = (arm: string, seed: number, panel: StudyPanelFigures | null): StudyRunData => ({
    arm,
    seed,
    runId: `R${arm}${seed}`,
    status: 'finished',
    error: null,
    matches: [match(1, 0.8)],
    gyms: [],
    evaluation: null,
    panel,
  });
  const runs = [
    run('ib-rl', 1, figures(0.8, 0.9)),
    run('ib-rl', 2, figures(0.7, 0.75)),
    run('ib-rl', 3, figures(0.9, 0.9)),
    run('unilateral', 1, figures(0.6, 0.9)),
    run('unilateral', 2, figures(0.5, 0.8)),
    run('unilateral', 3, null),
  ];

  it('per arm: panel average, training counterpart and gap as means with t intervals over seeds', () => {
    const s = summariseStudy(['ib-rl', 'unilateral'], runs);
    const ib = s.arms[0]!.measures;
    expect(ib['panel.routing']).toEqual(meanInterval([0.8, 0.7, 0.9], 0.95, [0, 1]));
    expect(ib['panel.routing']!.ci![1]).toBe(1);
    expect(ib['panel.training.meanReward']!.mean).toBe(5);
    expect(ib['panel.gap.routing']!.mean).toBeCloseTo((0.1 + 0.05 + 0) / 3, 12);
    // A seed without panel figures is left out, not counted as 0.
    expect(s.arms[1]!.measures['panel.routing']!.n).toBe(2);
  });

  it('paired differences on the panel against a chosen baseline arm (IB-RL − unilateral)', () => {
    expect(summariseStudy(['ib-rl', 'unilateral'], runs).baseline).toBe('ib-rl');
    const s = summariseStudy(['ib-rl', 'unilateral'], runs, 'unilateral');
    expect(s.baseline).toBe('unilateral');
    const p = s.paired[0]!;
    expect([p.a, p.b]).toEqual(['ib-rl', 'unilateral']);
    expect(p.measures['panel.routing']).toEqual(
      pairedDifference(
        new Map([
          [1, 0.8],
          [2, 0.7],
        ]),
        new Map([
          [1, 0.6],
          [2, 0.5],
        ]),
      ),
    );
    expect(p.measures['panel.routing']!.seeds).toEqual([1, 2]);
    expect(p.measures['panel.gap.routing']!.mean).toBeCloseTo((0.1 - 0.3 + (0.05 - 0.3)) / 2, 12);
    expect(() => summariseStudy(['ib-rl', 'unilateral'], runs, 'full')).toThrow(/baseline arm "full" is not an arm of the study/);
  });

  it("studyPanelFigures takes a panel summary's means", () => {
    const f = studyPanelFigures('DA3', {
      rows: [],
      training: null,
      gap: null,
      average: { routing: meanInterval([0.5, 1]), strictPass: meanInterval([0, 1]), meanReward: meanInterval([2, 4]) },
    });
    expect(f).toEqual({ da: 'DA3', counterparts: [], panel: { routing: 0.75, strictPass: 0.5, meanReward: 3 }, training: null, gap: null });
  });
});

describe('summariseStudy: held-out routing per scenario', () => {
  const per = (xs: [string, number][]) =>
    xs.map(([scenarioId, routingAccuracy]) => ({ scenarioId, episodes: 2, routingAccuracy, strictPass: 0, meanReward: 0 }));
  const run = (seed: number, da0: [string, number][], final: [string, number][]): StudyRunData => ({
    arm: 'full',
    seed,
    runId: `R${seed}`,
    status: 'finished',
    error: null,
    matches: [match(1, 0.6), match(2, 0.8, 'DA1', 'CA0')],
    gyms: [gymAfter(1, 'DA')],
    evaluation: {
      checkpoints: [
        { da: 'DA0', ca: 'CA0', heldout: { ...heldout(0.5), perScenario: per(da0) } },
        { da: 'DA1', ca: 'CA0', heldout: { ...heldout(0.75), perScenario: per(final) } },
      ],
    },
  });

  it('DA0 and the final DA per scenario over seeds, the gain paired within each seed, intervals cut to their ranges', () => {
    const s = summariseStudy(
      ['full'],
      [
        run(
          1,
          [
            ['a-h', 0.5],
            ['b-h', 1],
          ],
          [
            ['a-h', 1],
            ['b-h', 1],
          ],
        ),
        run(
          2,
          [
            ['a-h', 0],
            ['b-h', 1],
          ],
          [
            ['a-h', 0.5],
            ['b-h', 0.5],
          ],
        ),
        run(3, [['a-h', 0.5]], [['a-h', 1]]),
      ],
    );
    const [a, b] = s.arms[0]!.heldoutScenarios;
    expect(a!.scenarioId).toBe('a-h');
    expect(a!.da0).toEqual(meanInterval([0.5, 0, 0.5], 0.95, [0, 1]));
    expect(a!.final).toEqual(meanInterval([1, 0.5, 1], 0.95, [0, 1]));
    expect(a!.gain).toEqual(meanInterval([0.5, 0.5, 0.5], 0.95, [-1, 1]));
    expect(a!.gain.mean).toBeCloseTo(0.5, 12);
    // b-h: seed 3's evaluations lack it, so two seeds.
    expect(b!.scenarioId).toBe('b-h');
    expect(b!.gain.n).toBe(2);
    expect(b!.gain.mean).toBeCloseTo(-0.25, 12);
    expect(b!.final.ci).toBeNull(); // two seeds: too few for an interval
  });

  it("groups the held-out scenarios by the arena's reach: per seed the group's mean, then over seeds; the gains' difference paired", () => {
    const runs = [
      run(
        1,
        [
          ['a-h', 0.5],
          ['b-h', 0.25],
          ['n-h', 0.5],
        ],
        [
          ['a-h', 1],
          ['b-h', 0.75],
          ['n-h', 0.5],
        ],
      ),
      run(
        2,
        [
          ['a-h', 0],
          ['b-h', 0.5],
          ['n-h', 1],
        ],
        [
          ['a-h', 0.5],
          ['b-h', 0.5],
          ['n-h', 0.75],
        ],
      ),
      // Seed 3's evaluations carry no scenario outside the arena's reach: left out of both groups.
      run(3, [['a-h', 0.5]], [['a-h', 1]]),
    ];
    expect(summariseStudy(['full'], runs).arms[0]!.heldoutReach).toBeNull();
    const r = summariseStudy(['full'], runs, undefined, new Set(['a-h', 'b-h'])).arms[0]!.heldoutReach!;
    expect(r.arenaIntents.scenarios).toEqual(['a-h', 'b-h']);
    expect(r.otherIntents.scenarios).toEqual(['n-h']);
    // Seed 1: DA0 (0.5 + 0.25) / 2 = 0.375, final 0.875, gain 0.5; seed 2: 0.25, 0.5, 0.25.
    expect(r.arenaIntents.da0).toEqual(meanInterval([0.375, 0.25], 0.95, [0, 1]));
    expect(r.arenaIntents.final).toEqual(meanInterval([0.875, 0.5], 0.95, [0, 1]));
    expect(r.arenaIntents.gain).toEqual(meanInterval([0.5, 0.25], 0.95, [-1, 1]));
    expect(r.otherIntents.gain).toEqual(meanInterval([0, -0.25], 0.95, [-1, 1]));
    // Differences 0.5 − 0 and 0.25 − (−0.25): both 0.5, no spread.
    expect(r.gainDifference.mean).toBeCloseTo(0.5, 12);
    expect(r.gainDifference.n).toBe(2);
    expect(arenaOnlySummary(summariseStudy(['full'], runs, undefined, new Set(['a-h']))).arms[0]!.heldoutReach).toBeNull();
  });
});

describe('studyHosts', () => {
  it('counts runs per processor, in the order first seen, leaving out runs whose device was not recorded', () => {
    const a = 'AMD EPYC 7B13, AVX2';
    const b = 'Intel Xeon, AVX-512';
    expect(studyHosts([{ host: a }, { host: null }, { host: b }, { host: a }])).toEqual([
      { host: a, runs: 2 },
      { host: b, runs: 1 },
    ]);
    expect(studyHosts([{ host: null }])).toEqual([]);
  });
});
