import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { CAMOUFLAGED_CA_STYLE, ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { runMatch, summarise } from '../arena/match';
import { selectScenarios } from '../arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../config';
import { judgeEpisode } from '../judge/judge';
import { deriveSeed } from '../random';
import { policyActor, recordedFromEpisode, rolloutDa, sliceDecisionPoints } from '../rl/da-rollout';
import { armGap, blendHeldout, blendedWDa, customerArm, formatArms, summariseArms } from './customer-mix';

const domain = bankingDomain();
const arena = selectScenarios(domain, 'arena');
const config = withEpisodes(DEFAULT_CONFIG, 4);
/** Two customers that speak differently: the "learned" one camouflaged, the symbolic one the default style. */
const learned = new ScriptedCa(domain, CAMOUFLAGED_CA_STYLE);
const symbolic = new ScriptedCa(domain);

describe('customerArm', () => {
  it('draws the symbolic arm with frequency ≈ ε, from the seed alone', () => {
    for (const eps of [0.1, 0.3, 0.7]) {
      const n = 4000;
      const hits = Array.from({ length: n }, (_, i) => customerArm(deriveSeed(11, 'ep', i), eps)).filter((a) => a === 'symbolic').length;
      // Four binomial standard deviations.
      expect(Math.abs(hits / n - eps)).toBeLessThan(4 * Math.sqrt((eps * (1 - eps)) / n));
    }
    const seeds = Array.from({ length: 50 }, (_, i) => deriveSeed(3, i));
    expect(seeds.map((s) => customerArm(s, 0.3))).toEqual(seeds.map((s) => customerArm(s, 0.3)));
  });
  it('ε = 0 is always the learned CA, ε = 1 always the symbolic one; ε outside [0, 1] is refused', () => {
    expect(customerArm(5, 0)).toBe('learned');
    expect(customerArm(5, 1)).toBe('symbolic');
    expect(() => customerArm(5, 1.5)).toThrow(/customer.symbolicMix must be in \[0, 1\], got 1.5/);
  });
  it('a larger ε keeps every symbolic episode of a smaller one symbolic (one uniform per seed)', () => {
    const seeds = Array.from({ length: 200 }, (_, i) => deriveSeed(8, i));
    for (const s of seeds) if (customerArm(s, 0.2) === 'symbolic') expect(customerArm(s, 0.5)).toBe('symbolic');
  });
});

describe('a match with the symbolic-user mix', () => {
  const play = (eps?: number) =>
    runMatch({
      matchId: 'M1',
      createdAt: '2026-01-01T00:00:00.000Z',
      domain,
      scenarios: arena,
      scenarioSet: 'arena',
      da: new ScriptedDa(),
      ca: learned,
      judge: judgeEpisode,
      config,
      seed: 21,
      ...(eps !== undefined ? { symbolic: { ca: symbolic, mix: eps } } : {}),
    });

  it('records who played each episode, by its seed, and each arm speaks as its customer does', async () => {
    const mixed = await play(0.4);
    const allLearned = await play();
    const allSymbolic = await play(1);
    expect(allLearned.episodes.every((e) => e.customer === undefined)).toBe(true);
    mixed.episodes.forEach((e, i) => {
      expect(e.customer).toBe(customerArm(e.seed, 0.4));
      const same = e.customer === 'symbolic' ? allSymbolic.episodes[i]! : allLearned.episodes[i]!;
      expect(e.turns.map((t) => t.text)).toEqual(same.turns.map((t) => t.text));
    });
    const arms = mixed.episodes.map((e) => e.customer);
    expect(arms).toContain('symbolic');
    expect(arms).toContain('learned');
  });

  it('reports W_DA per arm, and the blend of the arms is the match W_DA', async () => {
    const { match, episodes } = await play(0.4);
    const arms = summariseArms(episodes);
    expect(arms.symbolic.episodes + arms.learned.episodes).toBe(episodes.length);
    for (const arm of ['symbolic', 'learned'] as const) {
      const mine = episodes.filter((e) => e.customer === arm && !e.fraudReference);
      expect(arms[arm].winnable).toBe(mine.length);
      expect(arms[arm].wDa).toBeCloseTo(mine.filter((e) => e.winner === 'DA').length / mine.length);
    }
    expect(blendedWDa(arms)).toBeCloseTo(match.wDa!);
    expect(blendedWDa(arms)).toBeCloseTo(summarise(arena, episodes).wDa!);
    expect(armGap(arms)).toBeCloseTo(arms.symbolic.wDa! - arms.learned.wDa!);
    expect(formatArms(arms)).toMatch(/^symbolic \d+\.\d% \(n \d+\) · learned \d+\.\d% \(n \d+\) · gap [+-]\d+\.\d pts$/);
  });

  it('per-arm figures of hand-made episodes: a blend can hide a gap', () => {
    const ep = (customer: 'symbolic' | 'learned', win: boolean) => ({ customer, fraudReference: false, winner: win ? ('DA' as const) : ('CA' as const) });
    const arms = summariseArms([
      ep('symbolic', true),
      ep('symbolic', true),
      ep('symbolic', true),
      ep('learned', false),
      ep('learned', true),
      ep('learned', false),
      { fraudReference: true, winner: 'DA' as const },
    ]);
    expect(arms.symbolic).toEqual({ episodes: 3, winnable: 3, wDa: 1 });
    expect(arms.learned).toEqual({ episodes: 4, winnable: 3, wDa: 1 / 3 });
    expect(blendedWDa(arms)).toBeCloseTo(4 / 6);
    expect(armGap(arms)).toBeCloseTo(2 / 3);
  });

  it('blends held-out figures by ε', () => {
    const b = blendHeldout({ routingAccuracy: 0.9, strictPass: 0.8, meanReward: 6 }, { routingAccuracy: 0.5, strictPass: 0.4, meanReward: 2 }, 0.3);
    expect(b.routingAccuracy).toBeCloseTo(0.62);
    expect(b.strictPass).toBeCloseTo(0.52);
    expect(b.meanReward).toBeCloseTo(3.2);
  });

  it("a DA gym's rollout replays each episode against the customer that played it", async () => {
    const { episodes } = await play(0.4);
    const scripted = policyActor(new ScriptedDa());
    let symbolicEpisodes = 0;
    let differedWithout = 0;
    for (const e of episodes.slice(0, 16)) {
      const points = sliceDecisionPoints(recordedFromEpisode(e, domain.scenarios), config.arena.maxDaTurns);
      const items = points.map((point) => ({ point, raw: point.original.raw }));
      const withMix = await rolloutDa({ config, ca: learned, judge: judgeEpisode, symbolic: { ca: symbolic, mix: 0.4 } }, scripted, items);
      for (const out of withMix) expect(out.transcript.turns.map((t) => (t.role === 'customer' ? t.text : t.raw))).toEqual(e.turns.map((t) => t.text));
      if (e.customer === 'symbolic') {
        // Without the mix the learned CA speaks the rest of a symbolic episode: another episode
        // (unless its later turns happen to read the same, e.g. a plain thank-you).
        symbolicEpisodes++;
        const without = await rolloutDa({ config, ca: learned, judge: judgeEpisode }, scripted, items);
        if (
          without.some(
            (out) => JSON.stringify(out.transcript.turns.map((t) => (t.role === 'customer' ? t.text : t.raw))) !== JSON.stringify(e.turns.map((t) => t.text)),
          )
        )
          differedWithout++;
      }
    }
    expect(symbolicEpisodes).toBeGreaterThan(0);
    expect(differedWithout).toBeGreaterThan(0);
  });
});
