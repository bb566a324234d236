import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import { overlayConfig } from './arms';
import { parseRunConfig, sparringConfigOf } from './run-config';
import { PRESETS } from '../presets';

describe('run config', () => {
  it('accepts both presets, and paper keeps the RL-ADA constants', () => {
    for (const p of Object.values(PRESETS)) expect(parseRunConfig(JSON.stringify(p.config))).toEqual(p.config);
    const paper = sparringConfigOf(PRESETS.paper.config);
    expect(paper.arena.episodesPerScenario).toBe(18);
    expect(paper.stopping).toEqual(DEFAULT_CONFIG.stopping);
    expect(PRESETS.paper.config.gym.da.K).toBe(16);
    expect(PRESETS.paper.config.gym.ca.K).toBe(8);
    expect(PRESETS.paper.config.gym.ca.klBeta).toBe(0.05);
    expect(PRESETS.paper.config.gym.ca.lrSchedule).toBe('cosine');
    expect(PRESETS.paper.config.gym.failureShare).toBe(0.7);
  });

  it('names the bad field', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deliberately breaking a typed config
    type Loose = Record<string, any>;
    const bad = (mutate: (c: Loose) => void) => {
      const c = structuredClone(PRESETS.quick.config) as Loose;
      mutate(c);
      return () => parseRunConfig(JSON.stringify(c), 'my.json');
    };
    expect(bad((c) => (c.arena.episodesPerScenario = 0))).toThrow(/my\.json: field arena\.episodesPerScenario: /);
    expect(bad((c) => (c.gym.da.K = 1))).toThrow(/field gym\.da\.K/);
    expect(bad((c) => (c.stopping.nMin = 9))).toThrow(/field stopping\.nMin: nMin must be ≤ nMax/);
    expect(bad((c) => (c.gym.typo = 1))).toThrow(/field gym: .*typo/);
    expect(bad((c) => (c.daReward = { formatValid: 1, bonus: 2 }))).toThrow(/field daReward\.bonus: unknown reward term/);
    expect(() => parseRunConfig('{', 'x.json')).toThrow(/x\.json: not valid JSON/);
    expect(bad((c) => (c.gym.da.maxKl = 0))).toThrow(/field gym\.da\.maxKl/);
    expect(bad((c) => (c.gym.da.maxPasses = -1))).toThrow(/field gym\.da\.maxPasses/);
    expect(bad((c) => (c.bootstrap.daWarmup.advEps = -0.1))).toThrow(/field bootstrap\.daWarmup\.advEps/);
    expect(bad((c) => (c.gym.ca.oversample = 0.5))).toThrow(/field gym\.ca\.oversample/);
    expect(bad((c) => (c.gym.ca.entropyCoef = -1))).toThrow(/field gym\.ca\.entropyCoef/);
    expect(bad((c) => (c.gym.da.temperature = 0))).toThrow(/field gym\.da\.temperature/);
    expect(bad((c) => (c.bootstrap.sft.caOnlyShare = 0.95))).toThrow(/field bootstrap\.sft\.caOnlyShare/);
  });

  it('bounds every number above, naming the field, the bound and why (issue 51)', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deliberately breaking a typed config
    type Loose = Record<string, any>;
    const bad = (mutate: (c: Loose) => void) => {
      const c = structuredClone(PRESETS.quick.config) as Loose;
      mutate(c);
      return () => parseRunConfig(JSON.stringify(c), 'config');
    };
    expect(bad((c) => (c.gym.da.K = 100_000_000))).toThrow('config: field gym.da.K: at most 256 (rollouts per prompt held in memory at once)');
    expect(bad((c) => (c.arena.episodesPerScenario = 1_000_000_000))).toThrow(/field arena\.episodesPerScenario: at most 1000 \(/);
    expect(bad((c) => (c.daReward = { formatValid: 1e308 }))).toThrow(/field daReward\.formatValid: at most 1000 \(a reward weight/);
    expect(bad((c) => (c.caReward = { formatBad: -1e308 }))).toThrow(/field caReward\.formatBad: at least -1000/);
    expect(bad((c) => (c.bootstrap.sft.batchSize = 1e9))).toThrow(/field bootstrap\.sft\.batchSize: at most 4096/);
    expect(bad((c) => (c.eval.runs = 1e6))).toThrow(/field eval\.runs: at most 100/);
    expect(bad((c) => (c.gym.ca.steps = 1e7))).toThrow(/field gym\.ca\.steps: at most 10000/);
    expect(bad((c) => (c.judge = 'x'.repeat(10_000)))).toThrow(/field judge: at most 200 characters/);
    // Every value of every preset and study arm stays within the bounds.
    for (const p of Object.values(PRESETS)) expect(() => parseRunConfig(JSON.stringify(p.config))).not.toThrow();
  });

  it('1e309 is "not a finite number" with its field; a "__proto__" key is refused as any unknown key (issue 51)', () => {
    const text = JSON.stringify(PRESETS.smoke.config);
    expect(() => parseRunConfig(text.replace('"episodesPerScenario":3', '"episodesPerScenario":1e309'))).toThrow(
      'config: field arena.episodesPerScenario: not a finite number',
    );
    expect(() => parseRunConfig(text.replace(/^\{/, '{"daReward":{"__proto__":{"formatValid":99}},'))).toThrow(
      'config: field daReward: Unrecognized key: "__proto__"',
    );
    expect(() => parseRunConfig(text.replace('"gym":{', '"gym":{"__proto__":{"x":1},'))).toThrow(/field gym: Unrecognized key: "__proto__"/);
    // An overlay (run --preset P --config overlay.json, a study arm) is merged first: the key must not turn into its prototype there.
    expect(() => overlayConfig(PRESETS.quick.config, JSON.parse('{"gym":{"__proto__":{"x":1}}}') as Record<string, unknown>, 'overlay.json')).toThrow(
      /overlay\.json: field gym: Unrecognized key: "__proto__"/,
    );
    expect(() => overlayConfig(PRESETS.quick.config, JSON.parse('{"arena":{"episodesPerScenario":1e309}}') as Record<string, unknown>, 'o')).toThrow(
      'o: field arena.episodesPerScenario: not a finite number',
    );
  });

  it('takes an IB-RL schedule and names its bad fields', () => {
    const withSchedule = (schedule: unknown) => JSON.stringify({ ...PRESETS.quick.config, schedule });
    const ok = { kind: 'ib-rl', pool: { pBoth: 0.7, pDa: 0.2, pCa: 0.1 }, stagger: { daEvery: 1, caEvery: 2, daLr: 1e-3, caLr: 3e-4 }, rounds: 6 };
    expect(parseRunConfig(withSchedule(ok)).schedule).toEqual(ok);
    expect(parseRunConfig(withSchedule({ kind: 'ib-rl' })).schedule).toEqual({ kind: 'ib-rl' });
    const bad = (schedule: unknown) => () => parseRunConfig(withSchedule(schedule), 'ib-rl.json');
    expect(bad({ kind: 'ib-rl', pool: { pBoth: 0.7, pDa: 0.2, pCa: 0.2 } })).toThrow(/ib-rl\.json: field schedule\.pool: pBoth \+ pDa \+ pCa must be 1/);
    expect(bad({ kind: 'ib-rl', pool: { pBoth: 1.2, pDa: 0, pCa: -0.2 } })).toThrow(/field schedule\.pool\.pBoth/);
    expect(bad({ kind: 'ib-rl', pool: { pBoth: 1, pDa: 0 } })).toThrow(/field schedule\.pool\.pCa/);
    expect(bad({ kind: 'ib-rl', stagger: { daEvery: 0, caEvery: 2 } })).toThrow(/field schedule\.stagger\.daEvery/);
    expect(bad({ kind: 'ib-rl', stagger: { daEvery: 1, caEvery: 2, caLr: 0 } })).toThrow(/field schedule\.stagger\.caLr/);
    expect(bad({ kind: 'ib-rl', rounds: 0 })).toThrow(/field schedule\.rounds/);
    expect(bad({ kind: 'ib-rl', daOpponent: 'CA0' })).toThrow(/field schedule\.daOpponent: an RL-ADA setting/);
    expect(bad({ pool: { pBoth: 1, pDa: 0, pCa: 0 } })).toThrow(/field schedule\.pool: an IB-RL setting: only with "kind": "ib-rl"/);
    expect(bad({ kind: 'ib-rl-x' })).toThrow(/field schedule\.kind/);
  });

  it('takes an optional human-episode mix for the gyms, with weight and cap checked', () => {
    const withHuman = (h: unknown) => JSON.stringify({ ...PRESETS.quick.config, gym: { ...PRESETS.quick.config.gym, humanEpisodes: h } });
    expect(parseRunConfig(withHuman({ weight: 0.5, cap: 20 })).gym.humanEpisodes).toEqual({ weight: 0.5, cap: 20 });
    expect(PRESETS.quick.config.gym.humanEpisodes).toBeUndefined();
    expect(() => parseRunConfig(withHuman({ weight: 0, cap: 20 }))).toThrow(/field gym\.humanEpisodes\.weight/);
    expect(() => parseRunConfig(withHuman({ weight: 1, cap: 2.5 }))).toThrow(/field gym\.humanEpisodes\.cap/);
  });

  it("takes who trains each role's gyms, builtin by default, and names a bad trainer", () => {
    const q = PRESETS.quick.config;
    const withTrainer = (da: unknown) => JSON.stringify({ ...q, gym: { ...q.gym, da: { ...q.gym.da, trainer: da } } });
    expect(parseRunConfig(withTrainer('external')).gym.da.trainer).toBe('external');
    expect(parseRunConfig(withTrainer({ kind: 'external' })).gym.da.trainer).toBe('external');
    expect(() => parseRunConfig(withTrainer({ kind: 'trl' }))).toThrow(/field gym\.da\.trainer/); // python and model are required
    const managed = { kind: 'trl', python: '.venv/bin/python', model: '/models/qwen', lora: { r: 8 }, grpo: { maxCompletionLength: 256, vllm: 'off' } };
    expect(parseRunConfig(withTrainer(managed)).gym.da.trainer).toEqual(managed);
    expect(() => parseRunConfig(withTrainer({ ...managed, lora: { r: 4096 } }))).toThrow(/field gym\.da\.trainer/);
    expect(() => parseRunConfig(withTrainer({ ...managed, grpo: { maxCompletionLength: 4 } }))).toThrow(/field gym\.da\.trainer/);
    expect(() => parseRunConfig(withTrainer({ ...managed, python: '' }))).toThrow(/field gym\.da\.trainer/);
    expect(parseRunConfig(JSON.stringify(q)).gym.ca.trainer).toBeUndefined();
    expect(() => parseRunConfig(withTrainer('trl'))).toThrow(/field gym\.da\.trainer/);
    // Only the arena's gyms: the bootstrap's warm-up and pressure train in process.
    expect(() => parseRunConfig(JSON.stringify({ ...q, bootstrap: { ...q.bootstrap, daWarmup: { ...q.bootstrap.daWarmup, trainer: 'external' } } }))).toThrow(
      /field bootstrap\.daWarmup/,
    );
  });

  it('refuses an external trainer for a role schedule.llm plays from the start (no checkpoint for its result to follow)', () => {
    const q = PRESETS.quick.config;
    const cfg = (llm: object) => JSON.stringify({ ...q, gym: { ...q.gym, da: { ...q.gym.da, trainer: 'external' } }, schedule: { llm } });
    expect(() => parseRunConfig(cfg({ da: 'qwen7b' }), 'x.json')).toThrow(
      'x.json: field gym.da.trainer: "external" hands the DA\'s gyms to a trainer, but schedule.llm.da plays the DA with the LLM "qwen7b", which has no checkpoint for the trainer\'s result to follow',
    );
    // An LLM customer beside an externally trained DA is fine.
    expect(parseRunConfig(cfg({ ca: 'cust' })).schedule?.llm).toEqual({ ca: 'cust' });
  });

  it('overrides reward terms it names and keeps the others', () => {
    const c = parseRunConfig(JSON.stringify({ ...PRESETS.quick.config, daReward: { speakPerTurn: -0.1 } }));
    const s = sparringConfigOf(c);
    expect(s.daReward.speakPerTurn).toBe(-0.1);
    expect(s.daReward.formatValid).toBe(0.5);
  });
});

describe('run config device block', () => {
  const withDevice = (device: unknown) => JSON.stringify({ ...PRESETS.quick.config, device });
  it('takes a provider (or auto), threads, and where matches run', () => {
    expect(parseRunConfig(withDevice({ provider: 'webgpu', threads: 2, play: 'cpu' })).device).toEqual({ provider: 'webgpu', threads: 2, play: 'cpu' });
    expect(parseRunConfig(withDevice({ provider: 'auto' })).device).toEqual({ provider: 'auto' });
    expect(parseRunConfig(JSON.stringify(PRESETS.quick.config)).device).toBeUndefined();
  });
  it('names the bad device field', () => {
    expect(() => parseRunConfig(withDevice({ provider: 'tpu' }), 'c.json')).toThrow(/c\.json: field device\.provider: /);
    expect(() => parseRunConfig(withDevice({ provider: 'cpu', threads: 0 }), 'c.json')).toThrow(/field device\.threads/);
    expect(() => parseRunConfig(withDevice({ provider: 'cpu', play: 'gpu' }), 'c.json')).toThrow(/field device\.play/);
    expect(() => parseRunConfig(withDevice({ threads: 2 }), 'c.json')).toThrow(/field device\.provider/);
  });
  it('takes the symbolic-user mix ε in [0, 1] (absent: the learned CA plays every episode)', () => {
    const withMix = (customer: unknown) => JSON.stringify({ ...PRESETS.quick.config, customer });
    expect(parseRunConfig(withMix({ symbolicMix: 0.3 })).customer).toEqual({ symbolicMix: 0.3 });
    expect(parseRunConfig(JSON.stringify(PRESETS.quick.config)).customer).toBeUndefined();
    expect(() => parseRunConfig(withMix({ symbolicMix: 1.2 }), 'c.json')).toThrow(/c\.json: field customer\.symbolicMix: /);
    expect(() => parseRunConfig(withMix({ mix: 0.2 }), 'c.json')).toThrow(/field customer/);
  });
});
