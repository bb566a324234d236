/** `sparring run`: a whole co-evolution run (RL-ADA §3), resumable with `--resume RUN`. */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { Option } from 'commander';
import { judgeSpecOf, parseRunConfig, RUN_THREADS } from '../../../core/coevolution/run-config';
import { PRESETS } from '../../../core/presets';
import type { RunDetail } from '../../../core/contract/contract';
import { armGap, blendHeldout, formatArms } from '../../../core/eau/customer-mix';
import type { KnobProposal } from '../../../core/eau/proposal';
import { createRunService } from '../../coevolution/service';
import { proposalStore } from '../../eau/proposals-store';
import { referenceEvaluations } from '../../coevolution/actors';
import type { CheckpointEvaluation } from '../../coevolution/actors';
import { HELDOUT_HEADER, heldoutRows } from '../../report/heldout-rows';
import { checkpointStore, describeLlm } from '../../store/checkpoint-store';
import { knobStore } from '../../store/knob-store';
import { configFileText } from '../config-file';
import { corpusHashOf } from '../corpus';
import { addDeviceOptions, deviceLine } from '../device';
import type { DeviceOptions } from '../device';
import { UsageError } from '../options';
import { resolveJudge } from '../policies';
import { RULE_JUDGE_SPEC } from '../../../core/judge/port';
import { llmStore } from '../../store/llm-store';
import { openSqliteStore } from '../../store/sqlite-store';

/** Whether the lab holds a model saved under this name (a missing lab holds none). */
function savedModel(db: string, name: string): boolean {
  if (db !== ':memory:' && !existsSync(db)) return false;
  const store = openSqliteStore(db);
  try {
    return llmStore(store.db).getEndpoint(name) !== undefined;
  } finally {
    store.close();
  }
}
import { progressBar } from '../progress';
import path from 'node:path';
import { runScalars } from '../../report/result-tables';
import { matchScalars, TensorBoardWriter } from '../../report/tensorboard';
import type { Progress } from '../progress';
import { pct, table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

interface RunOptions extends Partial<DeviceOptions> {
  preset: string;
  config?: string;
  da?: string;
  ca?: string;
  judge?: string;
  resume?: string;
  adversities?: boolean;
  inherit?: string;
  arenaOnly?: boolean;
  corpus?: string;
  tensorboard?: string;
}

export function registerRun(program: Command, globals: () => GlobalOptions): void {
  const cmd = program
    .command('run')
    .description('a whole co-evolution run: bootstrap, arena matches, isolation gyms, stopping rule, held-out evaluation')
    .addOption(
      new Option('--preset <name>', 'quick (small, for tests and demos), paper (RL-ADA) or robust (a stronger SFT recipe)')
        .choices(Object.keys(PRESETS))
        .default('quick'),
    )
    .option(
      '--config <file>',
      'a run config (JSON; see docs/configuration.md) instead of the preset; with --preset given too, an overlay merged over that preset (objects merge, other values replace), e.g. --preset paper --config assets/configs/ib-rl.json',
    )
    .option('--resume <run>', 'continue a run that was paused, killed or interrupted (e.g. R1)')
    .option('--inherit <run>', 'EAU experience pool: start from the kept knob writes of an earlier run (recorded as inherited writes)')
    .option(
      '--arena-only',
      'a run for choosing settings on the arena (kept with the run, so --resume, `report R` and the Evaluation screen leave its held-out figures out too): the held-out evaluation is played and stored as always but not printed (nor --json\'s "heldout"); `report R --heldout` shows it',
    )
    .option(
      '--corpus <import>',
      "DA0's SFT also learns the rows of an imported corpus (sparring import-banking77): its import id, or a source such as banking77 for the newest import of it (sets bootstrap.sft.corpus to the rows' content hash)",
    )
    .option(
      '--tensorboard <dir>',
      "write the run's metrics as TensorBoard event files while it runs (tensorboard --logdir DIR), in DIR/RUN: gym series as they are logged, each match's W_DA, W_CA, fraud rate and tactic measures, the held-out Table 4 at the end (not for --arena-only); the same as `sparring export RUN --tensorboard DIR`",
    )
    .option('--adversities', 'MADS adversities in every match and gym (sets the config\'s "adversities": true)')
    .option('--da <name>', 'an LLM saved in the lab (sparring models add) plays the DA: no DA0, no DA gyms (sets schedule.llm.da)')
    .option('--ca <name>', 'an LLM saved in the lab plays the CA: no CA0, no CA gyms (sets schedule.llm.ca)')
    .option(
      '--judge <spec>',
      `the judge of every episode (bootstrap, matches, gym rollouts, evaluations): ${RULE_JUDGE_SPEC} (builtin, default) | an LLM endpoint saved in the lab (sets the config's "judge")`,
    );
  // No default: without --provider a run uses its config's device block (absent: the CPU); with --resume, --provider overrides it.
  // --provider sets the config's "device": {"provider": P}; with --resume it overrides the stored one.
  addDeviceOptions(cmd, "the run's policies", null, `${RUN_THREADS}, or the config's device.threads; part of the run's numbers`);
  cmd.action(async (opts: RunOptions) => {
    const g = globals();
    // --preset and --config both given: the file is an overlay on the preset (checked whole, fields named).
    const overlayOn = cmd.getOptionValueSource('preset') === 'cli' && !opts.resume ? (opts.preset as keyof typeof PRESETS) : undefined;
    let configJson = opts.config ? configFileText(opts.config, overlayOn) : undefined;
    const device = opts.provider !== undefined || opts.threads !== undefined;
    const llm = { ...(opts.da ? { da: opts.da } : {}), ...(opts.ca ? { ca: opts.ca } : {}) };
    if (Object.keys(llm).length && opts.resume) throw new UsageError("--da/--ca set a new run's roles; a resumed run keeps its own");
    for (const [role, name] of Object.entries(llm))
      if (!savedModel(g.db, name))
        throw new UsageError(`--${role} ${name}: no model "${name}" in ${g.db} (sparring models add ${name} --base-url URL --model M)`);
    if (opts.judge !== undefined) {
      if (opts.resume) throw new UsageError("--judge sets a new run's judge; a resumed run keeps its own");
      resolveJudge(opts.judge, g); // refuses a SPEC that names no judge, before anything runs
    }
    // The rule judge is the default: `--judge rule` leaves the config as it is.
    const judge = opts.judge !== undefined && opts.judge !== RULE_JUDGE_SPEC ? opts.judge : undefined;
    if (opts.corpus !== undefined && opts.resume) throw new UsageError("--corpus sets a new run's DA0; a resumed run keeps its own");
    const corpus = opts.corpus !== undefined ? corpusHashOf(g.db, opts.corpus) : undefined;
    if ((opts.adversities || device || Object.keys(llm).length || judge !== undefined || corpus) && !opts.resume) {
      let base: { device?: object; schedule?: object; bootstrap?: { sft?: object } } = PRESETS[opts.preset as keyof typeof PRESETS].config;
      try {
        if (configJson !== undefined) base = JSON.parse(configJson) as object;
      } catch (e) {
        throw new UsageError(`--config ${opts.config}: not valid JSON (${(e as Error).message})`);
      }
      configJson = JSON.stringify({
        ...base,
        ...(opts.adversities ? { adversities: true } : {}),
        ...(Object.keys(llm).length ? { schedule: { ...base.schedule, llm } } : {}),
        ...(judge !== undefined ? { judge } : {}),
        ...(corpus ? { bootstrap: { ...base.bootstrap, sft: { ...base.bootstrap?.sft, corpus } } } : {}),
        ...(device
          ? {
              device: {
                provider: 'cpu',
                ...base.device,
                ...(opts.provider ? { provider: opts.provider } : {}),
                ...(opts.threads ? { threads: opts.threads } : {}),
              },
            }
          : {}),
      });
    }
    const service = createRunService({
      dbPath: g.db,
      ...(g.cache === false ? { llmCache: false } : {}),
      ...(opts.resume && opts.provider ? { forceProvider: opts.provider } : {}),
      onDevice: (id, d) => process.stderr.write(`run ${id}: ${deviceLine(d)}\n`),
    });
    let bar: Progress | null = null;
    let label = '';
    // --tensorboard: one event file for the run, opened at its first event (a resumed run's stored points first).
    let board: TensorBoardWriter | null = null;
    const boardOf = (runId: string): TensorBoardWriter | null => {
      if (opts.tensorboard === undefined) return null;
      if (!board) {
        board = new TensorBoardWriter(path.join(opts.tensorboard, runId), { replace: true });
        board.append(runScalars(service.store, runId));
      }
      return board;
    };
    const off = service.subscribe((e) => {
      if (e.name === 'run/metrics') boardOf(e.payload.runId)?.append(e.payload.points.map((p) => ({ tag: p.key, step: p.step, value: p.value })));
      else if (e.name === 'run/match') boardOf(e.payload.runId)?.append(matchScalars(e.payload.match));
      if (e.name === 'run/progress') {
        const p = e.payload.progress;
        if (p.label !== label) {
          bar?.stop();
          label = p.label;
          bar = progressBar(p.label);
        }
        bar!.update(p.done, p.total);
      } else if (e.name === 'run/match') {
        bar?.stop();
        label = '';
        const m = e.payload.match;
        process.stderr.write(
          `match ${m.index} (${m.da} vs ${m.ca}): W_DA ${pct(m.wDa)}${m.arms ? ` (blend; by customer: ${formatArms(m.arms)})` : ''}, fraud ${pct(m.fraudRate)} — ${m.stop.explanation}${m.pool ? `; ${m.scheduleNote}` : m.next ? `; ${m.next.explanation}` : ''}\n`,
        );
      } else if (e.name === 'run/trainer') {
        bar?.stop();
        label = '';
        const j = e.payload.job;
        if (j.status !== 'waiting') {
          process.stderr.write(`gym job ${j.id} (${j.role} gym ${j.gym}) is ${j.status}${j.checkpoint ? `: ${j.checkpoint}` : ''}\n`);
          return;
        }
        process.stderr.write(
          `waiting for an external trainer: ${j.role} gym ${j.gym} (${j.from} against frozen ${j.opponent}), gym job ${j.id}, export at ${j.exportPath}\n` +
            (j.commands
              ? `run, in another terminal (or stop here and resume later with: npx sparring run --resume ${e.payload.runId}):\n${j.commands.map((c) => `  ${c}`).join('\n')}\n` +
                `or end the wait with: npx sparring gym cancel ${j.id}\n`
              : ''),
        );
      } else if (e.name === 'run/gym' && e.payload.gym.note) {
        process.stderr.write(`gym ${e.payload.gym.to}: ${e.payload.gym.note}\n`);
      }
    });
    let runId: string;
    try {
      if (opts.resume) {
        runId = opts.resume;
        await service.resume(runId);
        process.stderr.write(`resuming ${runId} from ${service.get(runId).phase}\n`);
      } else {
        runId = (
          await service.start({
            preset: opts.preset,
            ...(configJson !== undefined ? { configJson } : {}),
            seed: g.seed,
            ...(opts.inherit ? { inherit: opts.inherit } : {}),
            ...(opts.arenaOnly ? { arenaOnly: true } : {}),
          })
        ).runId;
        process.stderr.write(`run ${runId} (${opts.config ?? `preset ${opts.preset}`}, seed ${g.seed}) in ${g.db}\n`);
        if (opts.inherit) {
          const inherited = knobStore(service.store.db)
            .writes(runId)
            .filter((w) => w.by.startsWith('inherited:'));
          process.stderr.write(
            `inherited from ${opts.inherit}: ${inherited.length ? inherited.map((w) => `${w.knob} ${w.from} → ${w.value}`).join(', ') : 'no kept writes'}\n`,
          );
        }
      }
      const started = Date.now();
      const detail = await service.settled(runId);
      (bar as Progress | null)?.stop();
      const tb = boardOf(runId);
      if (tb) {
        // Whatever the events did not carry yet (the last batch of points, the held-out evaluation).
        tb.append(runScalars(service.store, runId));
        tb.close();
        process.stderr.write(`TensorBoard: ${tb.written} scalar points in ${tb.file}\n`);
      }
      const seconds = (Date.now() - started) / 1000;
      const store = checkpointStore(service.store.db);
      const checkpoints = store.list().filter((c) => c.runId === runId);
      const proposals = proposalStore(service.store.db)
        .listProposals(runId)
        .map((p) => p.proposal);
      print(
        g.json,
        detail,
        checkpoints.map((c) => ({
          name: c.name,
          role: c.role,
          parent: c.parent,
          source: c.source,
          provider: c.provider,
          llm: c.llm ? describeLlm(c.llm) : null,
          humanEpisodes: store.humanEpisodesSeen(c.name).length,
        })),
        seconds,
        proposals,
        opts.arenaOnly === true || detail.arenaOnly === true,
      );
      if (detail.status === 'failed') process.exitCode = 1;
    } finally {
      off();
      await service.close();
    }
  });
}

/** ε of a stored run's config (0 when absent or unreadable: the summary then shows no arms). */
function symbolicMixOf(configJson: string): number {
  try {
    return parseRunConfig(configJson).customer?.symbolicMix ?? 0;
  } catch {
    return 0;
  }
}

/** RL-ADA Table 4, one row per DA checkpoint, with the deployment gate. */
function heldoutTable(rows: readonly Pick<CheckpointEvaluation, 'da' | 'heldout' | 'gate'>[]): string {
  return table(HELDOUT_HEADER, heldoutRows(rows), ['l', 'r', 'r', 'r', 'r', 'r', 'r']);
}

function print(
  json: boolean,
  d: RunDetail,
  checkpoints: { name: string; role: string; parent: string | null; source: string; provider: string | null; llm: string | null; humanEpisodes: number }[],
  seconds: number,
  proposals: readonly KnobProposal[],
  arenaOnly: boolean,
) {
  const stored = (d.evaluation as { checkpoints?: CheckpointEvaluation[] } | null)?.checkpoints ?? [];
  // --arena-only: nothing of the evaluation phase is shown (the held-out table, the scripted CA's, the ε blend, MADS robustness).
  const evals = arenaOnly ? [] : stored;
  const matches = d.matchSummaries.map((m) => ({
    index: m.index,
    matchId: m.matchId,
    da: m.da,
    ca: m.ca,
    wDa: m.wDa,
    wCa: 1 - m.wDa,
    fraudRate: m.fraudRate,
    // IB-RL: the round's updates (none when the pool and the stagger leave both roles out).
    // The gyms the schedule planned after the match (daGyms, isolation: both, a frozen opponent
    // depart from the weaker agent); runs stored before schedules have only the weaker agent.
    trained: m.gyms ? (m.gyms.length ? m.gyms.join('+') : m.pool || !m.stop.stop ? 'no' : null) : (m.next?.role ?? null),
    pool: m.pool ?? null,
    stop: m.stop.stop ? m.stop.reason : null,
    verdict: m.stop.explanation,
    tactics: m.tactics,
    ...(m.arms ? { arms: m.arms } : {}),
  }));
  if (json) {
    process.stdout.write(
      JSON.stringify(
        {
          runId: d.id,
          status: d.status,
          phase: d.phase,
          seed: d.seed,
          judge: judgeSpecOf(d.configJson),
          seconds,
          error: d.error,
          device: d.device ?? null,
          // What the run runs with, as the runner resolves its config (GRPO per phase, rewards).
          settings: d.settings ?? null,
          matches,
          gyms: d.gyms,
          checkpoints,
          heldout: arenaOnly ? null : evals,
          ...(arenaOnly ? { heldoutHidden: true } : {}),
          proposals,
        },
        null,
        2,
      ) + '\n',
    );
    return;
  }
  const out: string[] = [];
  out.push(`run ${d.id}: ${d.status} (${d.phase}) after ${seconds.toFixed(1)} s${d.error ? ` — ${d.error}` : ''}`);
  if (d.device) out.push(deviceLine(d.device));
  const judge = judgeSpecOf(d.configJson);
  if (judge !== RULE_JUDGE_SPEC) out.push(`judge: ${judge} (an LLM endpoint; every episode, gym rollout and evaluation)`);
  out.push('');
  out.push(
    table(
      ['match', 'DA', 'CA', 'W_DA', 'W_CA', 'fraud', 'next', 'entity density', 'opening tokens', 'decoys', 'hedges'],
      matches.map((m) => [
        m.index,
        m.da,
        m.ca,
        pct(m.wDa),
        pct(m.wCa),
        pct(m.fraudRate),
        m.trained ? `${m.trained} gym` : `stop (${m.stop})`,
        m.tactics.meanEntityDensity.toFixed(3),
        m.tactics.meanTokens.toFixed(1),
        pct(m.tactics.decoyRate),
        pct(m.tactics.hedgeRate),
      ]),
      ['r', 'l', 'l', 'r', 'r', 'r', 'l', 'r', 'r', 'r', 'r'],
    ),
  );
  if (matches.some((m) => m.arms)) {
    // EAU's appendix: a blended figure can hide a large gap between the arms, so both are shown.
    out.push('', 'W_DA by customer (symbolic-user mix ε; W_DA above is the blend):');
    out.push(
      table(
        ['match', 'W_DA blend', 'symbolic', 'n', 'learned', 'n', 'gap'],
        matches
          .filter((m) => m.arms)
          .map((m) => {
            const gap = armGap(m.arms!);
            return [
              m.index,
              pct(m.wDa),
              pct(m.arms!.symbolic.wDa),
              m.arms!.symbolic.winnable,
              pct(m.arms!.learned.wDa),
              m.arms!.learned.winnable,
              gap === null ? 'n/a' : `${gap >= 0 ? '+' : ''}${(gap * 100).toFixed(1)} pts`,
            ];
          }),
        ['r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
  }
  if (matches.length) out.push('', matches.at(-1)!.verdict);
  if (proposals.length) {
    out.push('', `EAU diagnostics proposed ${proposals.length} knob write(s) (never applied; a person decides):`);
    for (const p of proposals)
      out.push(
        `  ${p.at.matchIndex !== undefined ? `match ${p.at.matchIndex}` : `gym ${p.at.gymId}`} · ${p.source.kind === 'diagnostic' ? p.source.name : `llm ${p.source.model}`}: ${p.knob} → ${String(p.value)} — ${p.reason}`,
      );
  }
  if (checkpoints.length)
    out.push(
      '',
      `checkpoints: ${checkpoints.map((c) => `${c.parent ? `${c.parent}→` : ''}${c.name}${c.llm ? ` [${c.llm}]` : ''}${c.provider && c.provider !== 'cpu' ? ` [${c.provider}]` : ''}${c.humanEpisodes ? ` (saw ${c.humanEpisodes} human episodes)` : ''}`).join(', ')}`,
    );
  if (arenaOnly && stored.length)
    out.push(
      '',
      `held-out evaluation: played and stored, not shown (an arena-only run, for choosing settings on the arena); \`sparring report ${d.id} --heldout --out FILE\` shows it`,
    );
  if (evals.length) {
    out.push('', `held-out evaluation (12 scenarios, ${evals[0]!.heldout.episodes} episodes, against ${evals[0]!.ca}; [95% CI]: Wilson interval):`);
    out.push(heldoutTable(evals));
    const ref = referenceEvaluations(evals);
    if (ref.length) out.push('', 'held-out evaluation against the scripted CA (a fixed opponent: comparable across runs):', heldoutTable(ref));
    const mix = symbolicMixOf(d.configJson);
    if (mix > 0 && ref.length) {
      // The symbolic-user mix ε: the scripted CA is the symbolic arm, the run's CA the learned one.
      out.push('', `held-out by customer arm at ε = ${mix} (symbolic: the scripted CA; learned: ${evals[0]!.ca}; blend = ε·symbolic + (1−ε)·learned):`);
      out.push(
        table(
          ['DA', 'routing symbolic', 'learned', 'blend', 'strict PASS symbolic', 'learned', 'blend'],
          evals.flatMap((e) => {
            if (!e.reference) return [];
            const blend = blendHeldout(e.reference.heldout, e.heldout, mix);
            return [
              [
                e.da,
                pct(e.reference.heldout.routingAccuracy),
                pct(e.heldout.routingAccuracy),
                pct(blend.routingAccuracy),
                pct(e.reference.heldout.strictPass),
                pct(e.heldout.strictPass),
                pct(blend.strictPass),
              ],
            ];
          }),
          ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
        ),
      );
    }
    const mads = evals.filter((e) => e.mads);
    if (mads.length) {
      out.push('', `robustness (MADS, ${mads[0]!.mads!.scenarios.length} scenarios incl. custom ones, adversities on): L-2 by complexity`);
      const kinds = ['normal', 'unhappy', 'impossible'] as const;
      out.push(
        table(
          ['DA', 'L-2', 'complete', ...kinds],
          mads.map((e) => [
            e.da,
            e.mads!.overall.l2.toFixed(3),
            pct(e.mads!.overall.l2Complete),
            ...kinds.map((k) => e.mads!.byComplexity[k]?.l2.toFixed(3) ?? '–'),
          ]),
          ['l', 'r', 'r', 'r', 'r', 'r'],
        ),
      );
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}
