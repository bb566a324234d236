import { describe, expect, it } from 'vitest';
import { ARMS, armConfig, overlayConfig } from '../../core/coevolution/arms';
import type { ArmName } from '../../core/coevolution/arms';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import { bankingDomain } from '../domain-files';
import { bootstrapKey } from './bootstrap-reuse';

const domain = bankingDomain();
const key = (config: RunConfig, seed = 1, more: { provider?: string; scope?: string } = {}) =>
  bootstrapKey({
    seed,
    config,
    sparring: sparringConfigOf(config),
    domain,
    session: { provider: more.provider ?? 'cpu' },
    bootstrapScope: more.scope ?? 'study S1',
  });
const paper = PRESETS.paper.config;

describe('bootstrapKey', () => {
  it("is the same for every arm of a study's seed: arms change schedule, gym and stopping, which no bootstrap phase reads", () => {
    const arms = (Object.keys(ARMS) as ArmName[]).filter((a) => !a.startsWith('ib-rl'));
    const keys = new Set(arms.map((a) => key(armConfig(paper, a, 1))));
    expect(arms.length).toBeGreaterThan(6);
    expect(keys.size).toBe(1);
  });

  it('changes with the scope, the seed, the bootstrap block, the arena, the rewards, the domain, the provider and where matches play', () => {
    const base = key(paper);
    const changed = [
      key(paper, 2),
      key(overlayConfig(paper, { bootstrap: { sft: { epochs: paper.bootstrap.sft.epochs + 1 } } }, 'test')),
      key(overlayConfig(paper, { arena: { episodesPerScenario: paper.arena.episodesPerScenario + 1 } }, 'test')),
      key(overlayConfig(paper, { caReward: { concealPenalty: -0.5 } }, 'test')),
      key(paper, 1, { provider: 'webgpu' }),
      key(paper, 1, { scope: 'study S2' }),
      key(overlayConfig(paper, { device: { provider: 'cpu', play: 'cpu' } }, 'test')),
      bootstrapKey({
        seed: 1,
        config: paper,
        sparring: sparringConfigOf(paper),
        domain: { ...domain, scenarios: domain.scenarios.slice(1) },
        bootstrapScope: 'study S1',
      }),
    ];
    for (const k of changed) expect(k).not.toBe(base);
    expect(new Set(changed).size).toBe(changed.length);
  });
});
