/**
 * `sparring study`: seeds × arms of co-evolution runs with intervals over seeds. `study --preset P
 * --seeds N --arms LIST` creates and runs a study; `study --resume S` continues a killed one;
 * `study show S` prints its tables; `study list` lists the lab's studies.
 */
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { Option } from 'commander';
import { ARMS, customArm, parseArms, studyArmConfigs } from '../../../core/coevolution/arms';
import type { CustomArm } from '../../../core/coevolution/arms';
import { arenaOnlySummary, heldoutEpisodesNote, isHeldoutMeasure, MEASURES, studyHosts, TACTIC_FIELDS } from '../../../core/coevolution/study-summary';
import { parseRunConfig, RunConfigError } from '../../../core/coevolution/run-config';
import { PRESETS } from '../../../core/presets';
import type { RunConfig } from '../../../core/coevolution/run-config';
import { heldoutReachView, heldoutScenarioView, shapeView, SPLIT_HEADER, tacticConvergenceView } from '../../report/study-report';
import { fmt } from '../../../core/stats/format';
import { loadStudy } from '../../study/study-data';
import type { StudyView } from '../../study/study-data';
import { defaultWorkers, runStudy } from '../../study/runner';
import { rayPython } from '../../study/ray-executor';
import type { RayOptions } from '../../study/ray-executor';
import path from 'node:path';
import type { StudyProgress } from '../../study/runner';
import { studyStore } from '../../study/study-store';
import type { StudyRow } from '../../study/study-store';
import { runStudyPanel, StudyPanelError, studyPanelProtocol } from '../../study/study-panel';
import { newStudyEstimateRefusal, storedStudyEstimateRefusal } from '../../study/study-estimate';
import type { EstimateSlice } from '../../../core/coevolution/study-estimate';
import { estimateStep, estimateText, registerStudyEstimate } from './study-estimate';
import { registerStudyCaPolicy } from './ca-policy';
import { withLab } from '../study-lab';
import { progressBar } from '../progress';
import type { Progress } from '../progress';
import { configFileText, readOptionFile } from '../config-file';
import { corpusHashOf } from '../corpus';
import { assertArmCorpora } from '../../store/corpus-store';
import { nonNegativeInt, positiveInt, UsageError } from '../options';
import { parseSeedText, SeedsError } from '../../../core/coevolution/seeds';
import { table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

interface StudyOptions {
  preset?: string;
  config?: string;
  seeds?: string;
  arms?: string;
  /** `--arm NAME=FILE`, repeatable: the study's own arms. */
  arm?: string[];
  workers?: number;
  resume?: string;
  panel?: boolean;
  /** `--estimate SLICE`: the arena-only estimate, played once every run has finished. */
  estimate?: EstimateSlice;
  /** `--arena-only`: a study for choosing settings: no held-out or panel figure in any of its views (StudyRow.arenaOnly). */
  arenaOnly?: boolean;
  /** `--corpus IMPORT`: DA0's SFT adds the lab's imported corpus (bootstrap.sft.corpus). */
  corpus?: string;
  /** `--executor ray`: each run a task on a Ray cluster (host/study/ray-executor.ts). */
  executor?: 'local' | 'ray';
  address?: string;
  shardDir?: string;
  python?: string;
  cpusPerRun?: number;
  gpusPerRun?: number;
  retries?: number;
}

/**
 * Does this view of `study` leave held-out and panel figures out? Yes with `--arena-only`, and for a
 * study made with it unless `--heldout` asks for them by name, which is then said on stderr.
 */
export function viewArenaOnly(
  made: { id: string; arenaOnly?: boolean },
  flags: { arenaOnly?: boolean; heldout?: boolean },
  kind: 'study' | 'run' = 'study',
): boolean {
  if (flags.heldout && flags.arenaOnly) throw new UsageError('--heldout and --arena-only ask for opposite views; give one');
  const arenaOnly = flags.arenaOnly === true || (made.arenaOnly === true && flags.heldout !== true);
  if (made.arenaOnly && !arenaOnly)
    process.stderr.write(
      `${kind} ${made.id} was made arena-only, for choosing settings on the arena; --heldout shows its held-out and panel figures: choose nothing on them\n`,
    );
  return arenaOnly;
}

/** `--arm NAME=FILE`: the custom arm, its overlay read from FILE; errors name the option and the file. */
export function readCustomArm(spec: string): CustomArm {
  const eq = spec.indexOf('=');
  if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--arm takes NAME=FILE (a run-config overlay in JSON), got "${spec}"`);
  const [name, file] = [spec.slice(0, eq), spec.slice(eq + 1)];
  return customArm(name, readOptionFile(`--arm ${spec}`, file), file);
}

/** --executor ray's options, checked: an address (or RAY_ADDRESS), a shard folder (default beside the lab). */
function rayOptions(db: string, opts: StudyOptions): RayOptions {
  const address = opts.address ?? process.env.RAY_ADDRESS;
  if (!address) throw new UsageError('--executor ray needs --address HOST:PORT (or RAY_ADDRESS): the address `ray start --head` printed');
  return {
    address,
    shardDir: path.resolve(opts.shardDir ?? `${db}.shards`),
    python: (() => {
      try {
        return rayPython(opts.python);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    })(),
    cpusPerRun: opts.cpusPerRun ?? 1,
    gpusPerRun: opts.gpusPerRun ?? 0,
    retries: opts.retries ?? 2,
  };
}

/** `--seeds`: core/coevolution/seeds.ts reads it, as the app's Studies screen does. */
export function parseSeeds(text: string): number[] {
  try {
    return parseSeedText(text, '--seeds');
  } catch (e) {
    throw e instanceof SeedsError ? new UsageError(e.message) : e;
  }
}

export function registerStudy(program: Command, globals: () => GlobalOptions): void {
  const study = program
    .command('study')
    .description('seeds × arms of co-evolution runs (ablations of the method) with 95% intervals over seeds; resumable')
    .option('--preset <name>', `the base run config: ${Object.keys(PRESETS).join(', ')}`)
    .option(
      '--config <file>',
      'a run config (JSON) as the base instead of a preset; with --preset given too, an overlay merged over that preset (objects merge, other values replace)',
    )
    .option('--seeds <n>', 'how many seeds (1..n), or a list (1,4,7) with ranges (11-20)')
    .option('--arms <list>', `comma-separated arms: ${Object.keys(ARMS).join(', ')}`, 'full')
    .option(
      '--arm <name=file>',
      "a custom arm: NAME with a run-config overlay (JSON FILE) merged over the study's base, compared with the others on the same seeds; repeatable, added after --arms unless listed there",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--corpus <import>', "DA0's SFT in every run also learns an imported corpus (as `run --corpus`): its import id or source, e.g. banking77")
    .option('--workers <n>', `worker processes (default: one per core, here ${defaultWorkers()})`, positiveInt('--workers'))
    .option('--resume <study>', 'continue a study that was killed or interrupted (e.g. S1)')
    .option('--no-panel', 'skip the panel step at the end (each final DA against counterparts of other seeds; `study panel S` runs it later)')
    .option(
      '--arena-only',
      'a study for choosing settings on the arena: none of its views (this one, study show, report --study, the Studies screen) shows a held-out or panel figure unless asked for with --heldout, and it plays no panel step; only the runs, their gyms and W_DA, the CA tactics and the arena-only estimate',
    )
    .addOption(
      new Option('--executor <where>', 'where the runs run: worker processes here, or tasks on a Ray cluster').choices(['local', 'ray']).default('local'),
    )
    .option('--address <addr>', "--executor ray: the cluster's address (host:port, as `ray start --head` prints it); default RAY_ADDRESS")
    .option(
      '--shard-dir <dir>',
      '--executor ray: where each run writes its lab shard, seen by every node at the same path (default: beside the lab, <db>.shards)',
    )
    .option('--python <path>', '--executor ray: the Python with ray installed that drives the cluster (default SPARRING_PYTHON, else .venv/bin/python)')
    .option('--cpus-per-run <n>', '--executor ray: CPUs each run holds on the cluster', positiveInt('--cpus-per-run'), 1)
    .option('--gpus-per-run <n>', '--executor ray: GPUs each run holds (1 for runs whose LLM roles train on a GPU)', nonNegativeInt('--gpus-per-run'), 0)
    .option('--retries <n>', '--executor ray: attempts after the first before a run is reported failed', nonNegativeInt('--retries'), 2)
    .addOption(
      new Option(
        '--estimate <slice>',
        'once every run has finished, play the arena-only estimate with the CA speaking this slice of the bank (as `study estimate S --speak SLICE`; nothing held out read)',
      ).choices(['train', 'validation']),
    )
    .action(async (opts: StudyOptions) => {
      const g = globals();
      // Checked before a study exists: the address, and the Python that drives the cluster.
      const ray = opts.executor === 'ray' ? rayOptions(g.db, opts) : undefined;
      let id: string;
      if (opts.resume) {
        if (opts.preset || opts.config || opts.seeds || opts.arm || opts.corpus)
          throw new UsageError('--resume continues a study as it was created; leave out --preset, --config, --seeds, --arm and --corpus');
        id = opts.resume;
        const { busy, refused } = withLab(g.db, (db) => ({
          busy: studyStore(db).busy(id),
          refused: opts.estimate && storedStudyEstimateRefusal(db, id, opts.estimate),
        }));
        if (busy) throw new UsageError(busy);
        if (refused) throw new UsageError(`--estimate ${opts.estimate}: ${refused}`);
      } else {
        if (!opts.seeds) throw new UsageError('study needs --seeds (and --preset or --config), or --resume S');
        const seeds = parseSeeds(opts.seeds);
        const custom = (opts.arm ?? []).map(readCustomArm);
        const arms = parseArms(opts.arms ?? 'full', custom);
        if (opts.preset !== undefined && !Object.hasOwn(PRESETS, opts.preset))
          throw new RunConfigError('--preset', 'preset', `unknown preset "${opts.preset}"; known: ${Object.keys(PRESETS).join(', ')}`);
        const named = opts.preset as keyof typeof PRESETS | undefined;
        // A study's preset names its base only when the base is the preset unchanged; with --config (a
        // whole config, or with --preset an overlay merged over it) the study is custom.
        const corpus = opts.corpus !== undefined ? corpusHashOf(g.db, opts.corpus) : undefined;
        const preset = opts.config || corpus ? '' : (named ?? 'quick');
        const given: RunConfig = opts.config ? parseRunConfig(configFileText(opts.config, named), opts.config) : PRESETS[named ?? 'quick'].config;
        const base: RunConfig = corpus ? { ...given, bootstrap: { ...given.bootstrap, sft: { ...given.bootstrap.sft, corpus } } } : given;
        // Every arm's config is checked before anything runs.
        const configOf = studyArmConfigs(base, arms, custom);
        const refused = opts.estimate && newStudyEstimateRefusal(opts.estimate, arms, configOf);
        if (refused) throw new UsageError(`--estimate ${opts.estimate}: ${refused}`);
        // A corpus no run could find (an arm's overlay naming a hash this lab lacks) is refused before the study exists.
        withLab(g.db, (db) => assertArmCorpora(db, arms, configOf));
        id = withLab(
          g.db,
          (db) => studyStore(db).create({ preset, base, arms, seeds, configOf: (arm) => configOf(arm), arenaOnly: opts.arenaOnly === true }).id,
        );
        const from =
          (named && opts.config ? `preset ${named} with ${opts.config} over it` : (opts.config ?? `preset ${named ?? 'quick'}`)) +
          (corpus ? `, DA0's SFT with corpus ${opts.corpus} (${corpus.slice(0, 19)}…)` : '');
        process.stderr.write(`study ${id}: ${arms.length} arms × ${seeds.length} seeds (${from}) in ${g.db}\n`);
      }
      // On Ray every run is submitted at once (the cluster queues them by their resources) unless --workers caps it.
      const workers = opts.workers ?? (ray ? 1000 : defaultWorkers());
      const started = Date.now();
      const bar = studyBar(id);
      try {
        await runStudy({
          dbPath: g.db,
          studyId: id,
          workers,
          ...(ray
            ? {
                ray,
                onRay: (info) => bar.log(`Ray ${info.ray} at ${ray.address}: ${info.cpus} CPUs, ${info.gpus} GPUs; shards in ${ray.shardDir}\n`),
                onMerge: (m) =>
                  bar.log(
                    `${m.arm} seed ${m.seed} (${m.runId}): shard merged in ${m.seconds.toFixed(2)} s (${m.rows} rows${m.from === 'marker' ? ', finished while no coordinator watched' : ''}${m.attempts > 1 ? `, ${m.attempts} attempts` : ''})\n`,
                  ),
              }
            : {}),
          onProgress: (p) => bar.update(p),
          onEntry: (e) => {
            if (e.status === 'failed') bar.log(`${e.kind === 'eval' ? 'evaluation of ' : ''}${e.arm} seed ${e.seed} (${e.runId}) failed: ${e.error}\n`);
            else
              bar.log(
                `${e.kind === 'eval' ? `${e.arm} seed ${e.seed}: final DA evaluated against the full run's final CA` : `${e.arm} seed ${e.seed} (${e.runId}) finished`} in ${e.seconds.toFixed(1)} s\n`,
              );
          },
        });
      } finally {
        bar.stop();
      }
      // The panel and the estimate play only once every run finished: a panel computed while a run is failed
      // would lack its final CA (and a resumed run's CA would then be on the later DAs' panels only), and an
      // estimate would pair different seeds in different arms. `study panel S` and `study estimate S` run on
      // what finished.
      const { allFinished, made } = withLab(g.db, (db) => {
        const studies = studyStore(db);
        return { allFinished: studies.allFinished(id), made: studies.get(id) };
      });
      // The panel is held-out evaluation (its counterparts play the held-out scenarios): an arena-only study plays none.
      if (made.arenaOnly) process.stderr.write(`study ${id}: arena only, no panel step (\`sparring study panel ${id}\` runs it)\n`);
      else if (opts.panel !== false) {
        if (allFinished) await panelStep(g.db, id);
        else process.stderr.write(`study ${id}: panel step left out (not every run finished); \`sparring study panel ${id}\` runs it on the finished ones\n`);
      }
      if (opts.estimate) {
        if (allFinished) await estimateStep(g, id, opts.estimate, { flag: `--estimate ${opts.estimate}` });
        else
          process.stderr.write(
            `study ${id}: estimate left out (not every run finished); \`sparring study estimate ${id} --speak ${opts.estimate}\` plays it on the finished ones\n`,
          );
      }
      const seconds = (Date.now() - started) / 1000;
      const view = withLab(g.db, (db) => loadStudy(db, g.db, id));
      process.stderr.write(
        `study ${id}: ${view.study.status} in ${seconds.toFixed(1)} s ${ray ? `on the Ray cluster at ${ray.address}` : `with ${workers} worker${workers === 1 ? '' : 's'}`}\n`,
      );
      print(g.json, view, seconds, viewArenaOnly(view.study, { arenaOnly: opts.arenaOnly }));
      if (view.study.status !== 'finished') process.exitCode = 1;
    });

  study
    .command('show')
    .description('the tables of a study: per arm mean [95% CI] over seeds, paired differences against full (or --baseline)')
    .argument('<study>', 'the study id, e.g. S1')
    .option('--baseline <arm>', 'take the paired differences against this arm instead of full (e.g. ib-rl − unilateral: --baseline unilateral)')
    .option(
      '--arena-only',
      'no held-out or panel figure: the runs, their gyms and W_DA, the CA tactics and the arena-only estimate (for choosing settings on the arena; the default for a study made with --arena-only)',
    )
    .option('--heldout', 'show the held-out and panel figures of a study made with --arena-only (not for choosing settings)')
    .action((id: string, opts: { baseline?: string; arenaOnly?: boolean; heldout?: boolean }) => {
      const g = globals();
      const view = withLab(g.db, (db) => {
        const arms = studyStore(db).get(id).arms;
        if (opts.baseline !== undefined && !arms.includes(opts.baseline))
          throw new UsageError(`--baseline ${opts.baseline}: not an arm of study ${id} (${arms.join(', ')})`);
        return loadStudy(db, g.db, id, opts.baseline);
      });
      // `study` has --arena-only too, and commander gives it to the parent when both know it.
      const arenaOnly = viewArenaOnly(view.study, {
        arenaOnly: opts.arenaOnly === true || study.opts<StudyOptions>().arenaOnly === true,
        heldout: opts.heldout,
      });
      print(g.json, view, null, arenaOnly);
    });

  study
    .command('panel')
    .description(
      "counterpart shift (IB-RL): each finished run's final DA against a panel — scripted, the final CAs of the study's other seeds, human customer episodes, LLM CAs — and the mismatch gap; resumable, nothing computed twice",
    )
    .argument('<study>', 'the study id, e.g. S1')
    .action(async (id: string) => {
      const g = globals();
      withLab(g.db, (db) => studyStore(db).get(id));
      const started = Date.now();
      await panelStep(g.db, id);
      const view = withLab(g.db, (db) => loadStudy(db, g.db, id));
      // Stored for `study show --heldout`; an arena-only study's view still leaves it out.
      print(g.json, view, (Date.now() - started) / 1000, viewArenaOnly(view.study, {}));
    });

  registerStudyEstimate(study, globals);
  registerStudyCaPolicy(study, globals);

  study
    .command('list')
    .description("the lab's studies")
    .action(() => {
      const g = globals();
      const rows = withLab(g.db, (db) =>
        studyStore(db)
          .list()
          .map((s) => ({ ...s, entries: studyStore(db).entries(s.id) })),
      );
      if (g.json) {
        process.stdout.write(
          JSON.stringify(
            rows.map(({ base: _base, ...s }) => s),
            null,
            2,
          ) + '\n',
        );
        return;
      }
      process.stdout.write(
        table(
          ['study', 'preset', 'arms', 'seeds', 'status', 'runs finished'],
          rows.map((s) => [
            s.id,
            s.preset || 'custom',
            s.arms.join(','),
            s.seeds.length,
            s.status === 'running' && s.owner ? `running (pid ${s.owner.pid})` : s.status,
            `${s.entries.filter((e) => e.status === 'finished').length}/${s.entries.length}`,
          ]),
        ) + '\n',
      );
    });
}

/** The study's panel step (host/study/study-panel.ts) with a line per (arm, seed) on stderr. */
async function panelStep(dbPath: string, id: string): Promise<void> {
  // One bar per (arm, seed, counterpart), so a log says which evaluation moves.
  let bar: Progress | null = null;
  let current = '';
  try {
    const c = await runStudyPanel({
      dbPath,
      studyId: id,
      onProgress: (p) => {
        const key = `panel ${p.arm}/${p.seed} vs ${p.label}`;
        if (key !== current) {
          bar?.stop();
          bar = progressBar(key);
          current = key;
        }
        bar!.update(p.done, p.total);
      },
      onEntry: (e) => {
        bar?.stop();
        current = '';
        process.stderr.write(`panel: ${e.arm} seed ${e.seed}${e.da ? ` (${e.da})` : ''}: ${e.how}${e.detail ? ` — ${e.detail}` : ''}\n`);
      },
    });
    process.stderr.write(`study ${id} panel: ${c.computed} final DAs evaluated, ${c.stored} already stored, ${c.failed} failed\n`);
  } catch (e) {
    if (e instanceof StudyPanelError) throw new UsageError(e.message, { cause: e });
    throw e;
  } finally {
    (bar as Progress | null)?.stop();
  }
}

/** One bar for the whole study (runs and evaluations) with ETA; a line per settled run when stderr is not a terminal. */
function studyBar(id: string) {
  if (!process.stderr.isTTY) {
    return { update: (_p: StudyProgress) => undefined, log: (line: string) => process.stderr.write(line), stop: () => undefined };
  }
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `study ${id} [{bar}] {done}/{total} runs | ETA {eta_formatted} | {running}`, hideCursor: true, etaBuffer: 50, fps: 4 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p: StudyProgress) {
      const payload = { done: p.finished + p.failed, running: p.running.map((r) => `${r.arm}/${r.seed} ${r.phase}`).join(', ') };
      if (!started) {
        bar.start(p.total, p.value, payload);
        started = true;
      }
      bar.update(p.value, payload);
    },
    log(line: string) {
      if (started) bar.stop();
      process.stderr.write(line);
      started = false;
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/**
 * The study's JSON document: the study, its runs, and the tables (per arm and paired). Arena only:
 * without a held-out or panel figure (`arenaOnlySummary`), and saying so (`arenaOnly: true`).
 */
export function studyJson(v: StudyView, seconds: number | null, arenaOnly = false) {
  const { base: _base, ...study } = v.study;
  if (arenaOnly) {
    const s = arenaOnlySummary(v.summary);
    return {
      study,
      seconds,
      arenaOnly: true,
      runs: v.entries,
      hosts: studyHosts(v.entries),
      baseline: s.baseline,
      customArms: v.customArms,
      arms: s.arms,
      paired: s.paired,
      arenaEstimate: v.arenaEstimate,
      otherIntentsEstimate: v.otherIntentsEstimate,
    };
  }
  return {
    study,
    seconds,
    runs: v.entries,
    hosts: studyHosts(v.entries),
    baseline: v.summary.baseline,
    // What one seed's held-out rates rest on: episodes per DA and opponent in the runs' evaluations.
    heldoutEpisodes: v.summary.heldoutEpisodes,
    // Each custom arm's overlay on the base (what its runs' config changes).
    customArms: v.customArms,
    arms: v.summary.arms,
    paired: v.summary.paired,
    // Per (arm, seed): the final DA's panel figures (null before `study panel`); the arms' and pairs' measures carry panel.* over seeds.
    panel: { protocol: studyPanelProtocol(v.study.base), runs: v.runs.map((r) => ({ arm: r.arm, seed: r.seed, figures: r.panel ?? null })) },
    // What `study estimate` stored, per slice the CA spoke (null before it ran), paired against the baseline above.
    arenaEstimate: v.arenaEstimate,
    // The same on the intents beyond the arena (`study estimate --scenarios other-intents`).
    otherIntentsEstimate: v.otherIntentsEstimate,
  };
}

function print(json: boolean, v: StudyView, seconds: number | null, arenaOnly = false): void {
  if (json) {
    process.stdout.write(JSON.stringify(studyJson(v, seconds, arenaOnly), null, 2) + '\n');
    return;
  }
  const s = arenaOnly ? arenaOnlySummary(v.summary) : v.summary;
  const out: string[] = [];
  out.push(
    `study ${v.study.id}: ${v.study.preset ? `preset ${v.study.preset}` : 'custom config'}, arms ${v.study.arms.join(', ')}, seeds ${v.study.seeds.join(', ')} — ${studyStatusLine(v.study)}`,
  );
  out.push(
    [
      'Rates in %; mean [95% Student-t interval] over the seeds that finished.',
      arenaOnly
        ? v.study.arenaOnly
          ? `Arena only (made with --arena-only, for choosing settings): no held-out or panel figure is shown; \`study show ${v.study.id} --heldout\` shows them.`
          : 'Arena only (--arena-only): no held-out or panel figure is shown.'
        : heldoutEpisodesNote(s),
    ]
      .filter(Boolean)
      .join(' '),
    '',
  );
  if (v.customArms.length)
    out.push(`Custom arms, as overlays on the study's base: ${v.customArms.map((c) => `${c.arm} ${JSON.stringify(c.overlay)}`).join('; ')}`, '');
  const hosts = studyHosts(v.entries);
  if (hosts.length > 1)
    out.push(
      `Its runs ran on ${hosts.length} processors (${hosts.map((h) => `${h.host}: ${h.runs} runs`).join('; ')}): onnxruntime's CPU kernels follow the instruction set, so the same seed and config can give other figures on another of them.`,
      '',
    );
  out.push(
    table(
      ['arm', 'seed', 'run', 'status', 'matches', 'note'],
      v.entries.map((e) => [e.arm, e.seed, e.runId, e.status, e.matches, e.error ?? '']),
    ),
    '',
  );
  const block = (title: string, keys: string[]) => {
    const defs = keys.map((k) => MEASURES.find((m) => m.key === k)!);
    out.push(title);
    out.push(
      table(
        ['arm', 'n', ...defs.map((d) => d.label.replace(/ \((own|scripted) CA\)$/, ''))],
        s.arms.map((a) => [a.arm, a.seeds.finished, ...defs.map((d) => fmt(a.measures[d.key]!, d.rate))]),
        ['l', 'r', ...defs.map(() => 'r' as const)],
      ),
      '',
    );
  };
  const five = ['routing', 'strictPass', 'fail', 'meanReward', 'lookupFirst'];
  const panelKeys = ['routing', 'strictPass', 'meanReward'];
  // Held-out and panel figures (left out with --arena-only).
  if (!arenaOnly) {
    block(
      "Held-out, final DA against the run's own final CA (RL-ADA Table 4):",
      five.map((k) => `final.${k}`),
    );
    block(
      'Held-out, final DA − DA0 (own CA):',
      five.map((k) => `gain.${k}`),
    );
    const perScenario = heldoutScenarioView(s.arms);
    if (perScenario)
      out.push(perScenario.title, table(perScenario.header, perScenario.rows, ['l', ...perScenario.header.slice(1).map(() => 'r' as const)]), '');
    const reach = heldoutReachView(s.arms);
    if (reach) out.push(reach.title, table(reach.header, reach.rows, ['l', 'l', 'r', 'r', 'r', 'r']), '');
    block(
      'Held-out, final DA against the scripted CA:',
      five.map((k) => `final.scripted.${k}`),
    );
    block(
      'Held-out, final DA − DA0 (scripted CA):',
      five.map((k) => `gain.scripted.${k}`),
    );
    if (s.arms.some((a) => a.measures['final.fullCa.routing']!.n && a.arm !== 'full'))
      block(
        "Held-out, final DA against the full arm's final CA of the same seed:",
        five.map((k) => `final.fullCa.${k}`),
      );
    if (s.arms.some((a) => a.measures['panel.routing']!.n)) {
      block(
        'Counterpart shift (IB-RL): final DA against its panel — scripted, the final CAs of other seeds, human, LLM CAs — mean over counterparts:',
        panelKeys.map((k) => `panel.${k}`),
      );
      block(
        "Final DA against its training counterpart (its run's final CA; CA0 for a fixed-opponent run), same protocol:",
        panelKeys.map((k) => `panel.training.${k}`),
      );
      block(
        'Mismatch gap, training counterpart − panel (rates in points):',
        panelKeys.map((k) => `panel.gap.${k}`),
      );
    } else {
      out.push(
        `No panel figures yet: \`sparring study panel ${v.study.id}\` evaluates each final DA against counterparts that share nothing with its training.`,
        '',
      );
    }
  }
  out.push('Gyms and the shape of W_DA (k of n seeds [Wilson 95%]):');
  const shape = shapeView(s.arms);
  out.push(table(shape.header, shape.rows, ['l', ...shape.header.slice(1).map(() => 'r' as const)]), '');
  const longest = Math.max(0, ...s.arms.map((a) => a.wDa.length));
  out.push('W_DA per match (%):');
  out.push(
    table(
      ['arm', ...Array.from({ length: longest }, (_, i) => `M${i + 1}`)],
      s.arms.map((a) => [a.arm, ...Array.from({ length: longest }, (_, i) => (a.wDa[i] ? `${fmt(a.wDa[i], true)} n=${a.wDa[i].n}` : ''))]),
    ),
    '',
  );
  out.push('CA tactic measures, last match against the first (seeds up / down of n):');
  out.push(
    table(
      ['arm', ...TACTIC_FIELDS.map(([, , label]) => label)],
      s.arms.map((a) => [
        a.arm,
        ...TACTIC_FIELDS.map(([k]) => `${a.tacticDirection[k].up} up / ${a.tacticDirection[k].down} down of ${a.tacticDirection[k].n}`),
      ]),
    ),
    '',
  );
  for (const [k, , label] of TACTIC_FIELDS) {
    out.push(`CA tactic measure per match: ${label}:`);
    out.push(
      table(
        ['arm', ...Array.from({ length: longest }, (_, i) => `M${i + 1}`)],
        s.arms.map((a) => [
          a.arm,
          ...Array.from({ length: longest }, (_, i) => (a.tactics[k][i] ? fmt(a.tactics[k][i], k === 'decoyRate' || k === 'hedgeRate') : '')),
        ]),
      ),
      '',
    );
  }
  out.push('Which tactic the CA converged to (rule-based labels of its arena openings, pooled over seeds):');
  for (const a of s.arms) {
    const v = tacticConvergenceView(a);
    if (!v) continue;
    out.push(v.headline, table(['', 'tactic shares'], v.rows));
    for (const e of v.examples) out.push(`  e.g. "${e}"`);
    out.push(table(SPLIT_HEADER, v.splits));
    if (v.firstSplits.length) out.push('the same in the first match (CA0 against DA0):', table(SPLIT_HEADER, v.firstSplits));
    out.push('');
  }
  if (s.paired.length) {
    const keys = [
      'final.routing',
      'final.strictPass',
      'final.scripted.routing',
      'final.scripted.strictPass',
      'final.fullCa.routing',
      'gain.routing',
      'daGyms',
      'caGyms',
      ...(arenaOnly ? ['finalWDa', 'wDaAfterCaGym', 'wDaAfterDaGym'] : []),
    ].filter((k) => !arenaOnly || !isHeldoutMeasure(k));
    const defs = keys.map((k) => MEASURES.find((m) => m.key === k)!);
    out.push(`Paired differences arm − ${s.baseline} on the same seeds (mean [95% t interval]; rates in points):`);
    out.push(
      table(
        ['arm − ' + s.baseline, 'pairs', ...defs.map((d) => d.label)],
        s.paired.map((p) => [`${p.a} − ${p.b}`, p.measures[keys[0]!]!.n, ...defs.map((d) => fmt(p.measures[d.key]!, d.rate))]),
        ['l', 'r', ...defs.map(() => 'r' as const)],
      ),
    );
    if (!arenaOnly && s.arms.some((a) => a.measures['panel.routing']!.n)) {
      const pk = [...panelKeys.map((k) => `panel.${k}`), ...panelKeys.map((k) => `panel.gap.${k}`)];
      const pd = pk.map((k) => MEASURES.find((m) => m.key === k)!);
      out.push('', `Paired differences on the panel, arm − ${s.baseline} on the same seeds (mean [95% t interval]; rates in points):`);
      out.push(
        table(
          ['arm − ' + s.baseline, 'pairs', ...pd.map((d) => d.label)],
          s.paired.map((p) => [`${p.a} − ${p.b}`, p.measures['panel.routing']!.n, ...pd.map((d) => fmt(p.measures[d.key]!, d.rate))]),
          ['l', 'r', ...pd.map(() => 'r' as const)],
        ),
      );
    }
  }
  const estimates = (['train', 'validation'] as const).flatMap((k) => v.arenaEstimate[k] ?? []);
  out.push('', 'Arena-only estimate of the held-out gain (`sparring study estimate`; nothing held out read):');
  if (estimates.length) for (const e of estimates) out.push(estimateText(v.study.id, e));
  else out.push(`None stored yet: \`sparring study estimate ${v.study.id}\` plays it (two arena matches a run).`);
  const beyond = (['train', 'validation'] as const).flatMap((k) => v.otherIntentsEstimate[k] ?? []);
  if (beyond.length) {
    out.push('', 'On the intents beyond the arena (`sparring study estimate --scenarios other-intents`; nothing held out read):');
    for (const e of beyond) out.push(estimateText(v.study.id, e));
  }
  if (seconds !== null) out.push('', `${seconds.toFixed(1)} s`);
  process.stdout.write(out.join('\n') + '\n');
}

/** A study's status as `study show` heads it: who runs it, or how to continue it. */
export function studyStatusLine(s: Pick<StudyRow, 'id' | 'status' | 'owner'>): string {
  if (s.status === 'running' && s.owner) return `running in process ${s.owner.pid} on ${s.owner.host}`;
  if (s.status === 'interrupted') return `interrupted (no process runs it); \`sparring study --resume ${s.id}\` continues it`;
  return s.status;
}
