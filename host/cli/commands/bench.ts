/**
 * `sparring bench`: performance figures of the builtin policy path on this machine — the DA's
 * forward and train steps, bare onnxruntime as the ceiling, GRPO with rollout rewards, arena
 * episodes and the reference MLP; the environment server's steps per second (host/env/bench.ts);
 * the builtin DA over HTTP (`serve-model`) and a tiny local GGUF model's tokens per second. Each figure is the median of several timed rounds measured in
 * this one run; other work on the machine moves them, so compare figures from the same run.
 */
import os from 'node:os';
import type { Command } from 'commander';
import { RUN_THREADS } from '../../../core/coevolution/run-config';
import { InvalidArgumentError } from 'commander';
import { benchDa, benchMlp } from '../../../models/bench';
import { benchEnv } from '../../env/bench';
import { benchGguf, benchLlmHttp } from '../../llm/bench-llm';
import { ggufSpecSettings } from '../../policies/policies';
import type { BenchOptions } from '../../../models/bench';
import { hostCpu, probeLines, probeProviders } from '../../../models/device';
import { addDeviceOptions, deviceLine, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { bankingDomain } from '../../domain-files';
import { positiveInt } from '../options';
import { table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

const PARTS = ['da', 'mlp', 'env', 'llm', 'gguf'] as const;
type Part = (typeof PARTS)[number];

interface BenchCliOptions extends DeviceOptions {
  rounds: number;
  roundMs: number;
  only?: Part[];
  ggufSequences: number;
  ggufDim: number;
  ggufLayers: number;
}

/** The figures, in print order, with their units. */
const FIGURES: { key: string; unit: string; what: string }[] = [
  { key: 'da_forward_per_s_b1', unit: 'samples/s', what: 'DA forward, batch 1 (encoding included)' },
  { key: 'da_forward_per_s_b512', unit: 'samples/s', what: 'DA forward, batch 512 (encoding included)' },
  { key: 'raw_ort_forward_per_s_b512', unit: 'samples/s', what: 'same graph, bare onnxruntime, pre-built tensors' },
  { key: 'da_forward_b512_over_raw', unit: 'ratio', what: 'DA forward B=512 / bare forward, median of adjacent-round pairs' },
  { key: 'train_step_per_s_b256', unit: 'samples/s', what: 'DA supervised step, batch 256' },
  { key: 'grpo_samples_per_s', unit: 'samples/s', what: 'DA GRPO, K = 16, rollout reward included' },
  { key: 'arena_episodes_per_s', unit: 'episodes/s', what: 'scripted vs scripted through runMatch' },
  { key: 'env_in_process_steps_per_s', unit: 'steps/s', what: 'DA learner steps vs a builtin CA, in process (LearnerEpisode)' },
  { key: 'env_ws_steps_per_s', unit: 'steps/s', what: 'the same through `env serve` over one WebSocket session' },
  { key: 'env_http_steps_per_s', unit: 'steps/s', what: 'the same over HTTP /reset and /step' },
  { key: 'env_ws_over_in_process', unit: 'ratio', what: 'WebSocket steps/s over in-process steps/s' },
  { key: 'env_http_over_in_process', unit: 'ratio', what: 'HTTP steps/s over in-process steps/s' },
  { key: 'llm_http_episodes_per_s', unit: 'episodes/s', what: 'builtin DA through serve-model + the OpenAI client (HTTP, 8 in flight) vs scripted CA' },
  { key: 'llm_in_process_episodes_per_s', unit: 'episodes/s', what: 'the same DA in process, same concurrency' },
  { key: 'llm_http_over_in_process', unit: 'ratio', what: 'HTTP / in process, median of adjacent-round pairs' },
  { key: 'llm_http_over_arena', unit: 'ratio', what: 'llm_http_episodes_per_s / arena_episodes_per_s (scripted DA)' },
  { key: 'gguf_tokens_per_s', unit: 'tokens/s', what: 'random llama GGUF (node-llama-cpp), DA turns under the wire grammar, one at a time' },
  { key: 'gguf_batched_tokens_per_s', unit: 'tokens/s', what: 'the same with --gguf-sequences context sequences, as many calls at once' },
  { key: 'gguf_batched_over_single', unit: 'ratio', what: 'batched / one at a time, median of adjacent-round pairs' },
  { key: 'mlp_forward_per_s_b1', unit: 'samples/s', what: '4096→256→16 MLP forward, batch 1' },
  { key: 'mlp_forward_per_s_b512', unit: 'samples/s', what: 'MLP forward, batch 512' },
  { key: 'mlp_train_step_per_s_b256', unit: 'samples/s', what: 'MLP AdamW train step, batch 256' },
];

function parts(value: string): Part[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((p) => !(PARTS as readonly string[]).includes(p));
  if (bad !== undefined || list.length === 0) throw new InvalidArgumentError(`--only takes a comma-separated list of ${PARTS.join(', ')}, got "${value}"`);
  return list as Part[];
}

export function registerBench(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('bench')
      .description('performance figures of the builtin policies on this machine (medians of repeated rounds)')
      .option('--rounds <n>', 'timed rounds per figure (the median is reported)', positiveInt('--rounds'), 7)
      .option('--round-ms <ms>', 'minimum length of one round in ms', positiveInt('--round-ms'), 200)
      .option('--only <parts>', `measure only some parts: ${PARTS.join(', ')}`, parts)
      .option('--gguf-sequences <n>', 'gguf: context sequences (and calls at once) of the batched figure', positiveInt('--gguf-sequences'), 4)
      .option(
        '--gguf-dim <n>',
        "gguf: the random llama's width (a multiple of its 4 heads; 1024 makes matrix products dominate, as in a real model)",
        positiveInt('--gguf-dim'),
        64,
      )
      .option('--gguf-layers <n>', "gguf: the random llama's layers", positiveInt('--gguf-layers'), 2),
    'the measured graphs',
  ).action(async (opts: BenchCliOptions) => {
    const g = globals();
    const only = new Set<Part>(opts.only ?? PARTS);
    const t0 = performance.now();
    const log = (line: string) => process.stderr.write(`bench: ${line} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
    // The header: every provider, probed, then the one these figures are for and why.
    const providers = await probeProviders();
    for (const line of probeLines(providers)) process.stderr.write(`bench: provider ${line}\n`);
    const { session, device } = await deviceSession(opts, () => {});
    process.stderr.write(`bench: ${deviceLine(device)}\n`);
    const common: BenchOptions = {
      rounds: opts.rounds,
      roundMs: opts.roundMs,
      session: { ...session, warn: (l) => process.stderr.write(`${l}\n`) },
      onFigure: (name) => log(name),
    };

    const figures: Record<string, number> = {};
    const doc: Record<string, unknown> = {};
    let provider: string | null = null;
    let threads: number | null = null;
    if (only.has('da')) {
      const d = await benchDa(bankingDomain(), common);
      Object.assign(figures, {
        da_forward_per_s_b1: d.forwardB1,
        da_forward_per_s_b512: d.forwardB512,
        raw_ort_forward_per_s_b512: d.rawOrtForwardB512,
        da_forward_b512_over_raw: d.forwardB512OverRaw,
        train_step_per_s_b256: d.trainB256,
        grpo_samples_per_s: d.grpoSamples,
        arena_episodes_per_s: d.arenaEpisodes,
      });
      doc.da = { model: d.model, grpo: d.grpoBatch };
      provider = d.provider;
      threads = d.intraOpNumThreads;
    }
    if (only.has('mlp')) {
      const m = await benchMlp(common);
      Object.assign(figures, { mlp_forward_per_s_b1: m.forwardB1, mlp_forward_per_s_b512: m.forwardB512, mlp_train_step_per_s_b256: m.trainB256 });
      doc.mlp = { model: m.model };
      provider ??= m.provider;
      threads ??= m.intraOpNumThreads;
    }
    if (only.has('env')) {
      const e = await benchEnv(bankingDomain(), { rounds: opts.rounds, roundMs: opts.roundMs, onFigure: (name) => log(name) });
      Object.assign(figures, {
        env_in_process_steps_per_s: e.inProcessStepsPerS,
        env_ws_steps_per_s: e.wsStepsPerS,
        env_http_steps_per_s: e.httpStepsPerS,
        env_ws_over_in_process: e.wsOverInProcess,
        env_http_over_in_process: e.httpOverInProcess,
      });
    }
    if (only.has('llm')) {
      const l = await benchLlmHttp(bankingDomain(), { rounds: opts.rounds, roundMs: opts.roundMs, session: common.session! });
      log('llm http episodes');
      Object.assign(figures, {
        llm_http_episodes_per_s: l.httpEpisodes,
        llm_in_process_episodes_per_s: l.inProcessEpisodes,
        llm_http_over_in_process: l.httpOverInProcess,
      });
      if (figures.arena_episodes_per_s) figures.llm_http_over_arena = l.httpEpisodes / figures.arena_episodes_per_s;
      doc.llm = { callsPerEpisode: Math.round(l.callsPerEpisode * 100) / 100, concurrency: l.concurrency };
    }
    if (only.has('gguf')) {
      // Where it runs: SPARRING_GGUF_GPU, as for a gguf:FILE policy (default auto). Threads: one unless
      // SPARRING_GGUF_THREADS says otherwise — a 127k-parameter model has too little work per token to share.
      const { gpu, threads } = ggufSpecSettings({ SPARRING_GGUF_THREADS: '1', ...process.env });
      if (opts.ggufDim % 4 !== 0) throw new InvalidArgumentError(`--gguf-dim must be a multiple of 4 (the random llama's heads), got ${opts.ggufDim}`);
      const g = await benchGguf({
        rounds: opts.rounds,
        roundMs: opts.roundMs,
        gpu,
        threads,
        sequences: opts.ggufSequences,
        dim: opts.ggufDim,
        layers: opts.ggufLayers,
      });
      log('gguf tokens');
      Object.assign(figures, {
        gguf_tokens_per_s: g.tokensPerS,
        gguf_batched_tokens_per_s: g.batchedTokensPerS,
        gguf_batched_over_single: g.batchedOverSingle,
      });
      doc.gguf = {
        gpu: g.gpu,
        threads: g.threads,
        tokensPerCall: Math.round(g.tokensPerCall),
        params: g.params,
        dim: g.dim,
        layers: g.layers,
        sequences: g.sequences,
      };
      process.stderr.write(
        `bench: gguf on ${g.gpu}, ${g.threads || 'all'} threads, ${g.params} parameters (width ${g.dim}, ${g.layers} layers), ${Math.round(g.tokensPerCall)} tokens per DA turn, batched: ${g.sequences} sequences\n`,
      );
    }
    log('done');

    const rounded = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, /_over_/.test(k) ? Math.round(v * 1000) / 1000 : Math.round(v * 10) / 10]));
    const machine = {
      cpus: os.availableParallelism(),
      cpuModel: hostCpu().model,
      isa: hostCpu().isa,
      platform: `${process.platform}/${process.arch}`,
      node: process.version,
      provider,
      intraOpNumThreads: threads,
    };
    if (g.json) {
      process.stdout.write(JSON.stringify({ ...rounded, machine, device, providers, rounds: opts.rounds, roundMs: opts.roundMs, ...doc }, null, 2) + '\n');
      return;
    }
    const shown = (f: { key: string; unit: string }) => (f.unit === 'ratio' ? rounded[f.key]!.toFixed(3) : Math.round(rounded[f.key]!).toLocaleString('en-US'));
    const rows = FIGURES.filter((f) => f.key in rounded).map((f) => [f.key, shown(f), f.unit, f.what]);
    process.stdout.write(
      `providers found: ${providers
        .filter((p) => p.available)
        .map((p) => `${p.provider}${p.software ? ' (software)' : ''}`)
        .join(', ')}; ${deviceLine(device)}\n\n` +
        `${table(['figure', 'median', 'unit', 'what'], rows, ['l', 'r', 'l', 'l'])}\n\n` +
        `${machine.cpus} cores (${machine.cpuModel}, ${machine.isa}), ${machine.platform}, Node ${machine.node}; ` +
        `${provider !== null ? `provider ${provider}, ${threads} intra-op threads${threads !== RUN_THREADS ? ` (a run uses device.threads, default ${RUN_THREADS}: --threads ${RUN_THREADS} measures what it gets)` : ''}; ` : ''}` +
        `median of ${opts.rounds} rounds of ≥ ${opts.roundMs} ms each\n`,
    );
  });
}
