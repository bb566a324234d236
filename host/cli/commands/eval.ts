/** `sparring eval --da SPEC`: held-out metrics (RL-ADA Table 4) and the deployment gate. */
import { RUN_CONFIG_BOUNDS } from '../../../core/coevolution/run-config';
import type { Command } from 'commander';
import { evaluateDa, evaluateMads } from '../../../core/arena/evaluate';
import { pairedDifference } from '../../../core/stats/intervals';
import type { MadsGroup, MadsReport } from '../../../core/validators/mads-metrics';
import { DEFAULT_CONFIG } from '../../../core/config';
import { PRESETS } from '../../../core/presets';
import { bankingDomain } from '../../domain-files';
import { labDomainAt } from '../lab-domain';
import { banking77RoutingEval, bankRoutingEval, tfidfRouting } from '../../routing-eval';
import type { BaselineRoutingReport, RoutingReport } from '../../routing-eval';
import { DEFAULT_LOGREG, DEFAULT_TFIDF } from '../../../core/rl/tfidf';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { positiveInt, UsageError } from '../options';
import type { SessionSettings } from '../../../models/session';
import { rateWithInterval } from '../../report/heldout-rows';
import { JUDGE_OPTION, resolveCa, resolveDa, resolveJudge } from '../policies';
import { evaluatePanel, PanelError } from '../../panel/panel-eval';
import { PANEL_EPISODES_PER_SCENARIO } from '../../study/study-panel';
import type { PanelEvaluation } from '../../panel/panel-eval';
import { panelText } from '../../report/panel-table';
import { CheckpointError } from '../../store/checkpoint-store';
import { progressBar } from '../progress';
import type { Progress } from '../progress';
import { policyLabel } from '../../format/policy';
import { pct, table } from '../../format/table';
import type { GlobalOptions } from '../global-options';
import { signedFixed } from '../../../core/stats/format';

/** One held-out set, split by split: the DA's routing accuracy and the TF-IDF baseline's on the same items. */
interface SplitComparison {
  perSplit: { seed: number; n: number; da: number; baseline: number; diff: number; baselineToolMass: number; baselineToolLabel?: number }[];
  daMean: number;
  baselineMean: number;
  /** DA − baseline, paired by split, with its 95% t-interval over splits. */
  diff: { mean: number; sd: number; ci95: [number, number] | null };
}

export function compare(rows: { seed: number; da: RoutingReport; baseline: BaselineRoutingReport }[]): SplitComparison {
  const da = rows.map((r) => r.da.accuracy);
  const base = rows.map((r) => r.baseline.accuracy);
  const diffs = da.map((x, i) => x - base[i]!);
  // Splits pair by index (each split's DA and baseline saw the same data); one t-interval helper for studies and this.
  const d = pairedDifference(new Map(da.map((x, i) => [i, x])), new Map(base.map((x, i) => [i, x])));
  const diff = { mean: d.mean, sd: d.sd, ci95: d.ci };
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    perSplit: rows.map((r, i) => ({
      seed: r.seed,
      n: r.da.n,
      da: da[i]!,
      baseline: base[i]!,
      diff: diffs[i]!,
      baselineToolMass: r.baseline.toolMassAccuracy,
      ...(r.baseline.toolLabelAccuracy !== undefined ? { baselineToolLabel: r.baseline.toolLabelAccuracy } : {}),
    })),
    daMean: mean(da),
    baselineMean: mean(base),
    diff,
  };
}

function spreadOf(accs: number[]): { mean: number; sd: number; min: number; max: number } {
  const mean = accs.reduce((x, y) => x + y, 0) / accs.length;
  return { mean, sd: Math.sqrt(accs.reduce((x, y) => x + (y - mean) ** 2, 0) / accs.length), min: Math.min(...accs), max: Math.max(...accs) };
}

export function comparisonTable(title: string, c: SplitComparison): string {
  const signed = (x: number) => signedFixed(x * 100, 1);
  const rows = c.perSplit.map((r) => [
    String(r.seed),
    String(r.n),
    pct(r.da),
    pct(r.baseline),
    signed(r.diff),
    pct(r.baselineToolMass),
    pct(r.baselineToolLabel),
  ]);
  rows.push(['mean', '', pct(c.daMean), pct(c.baselineMean), signed(c.diff.mean), '', '']);
  const ci = c.diff.ci95
    ? `DA − TF-IDF ${signed(c.diff.mean)} points, 95% t-interval over ${c.perSplit.length} splits [${signed(c.diff.ci95[0])}, ${signed(c.diff.ci95[1])}]`
    : 'one split: no interval';
  return `${title}\n${table(['split', 'n', 'DA', 'TF-IDF', 'diff', 'TF-IDF tool mass', 'TF-IDF tool labels'], rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r'])}\n${ci}\n`;
}

/**
 * SFT routing accuracy (issue 3's quality figures): the bank's held-out slice, and Banking77 80/20.
 * With `splits` > 1 both are also taken on the splits of seeds seed+1 … seed+splits−1 (each a fresh
 * SFT), so a change is judged by its mean and spread rather than by one split. With `baseline`
 * 'tfidf', the TF-IDF linear classifier (core/rl/tfidf.ts) is trained on each split's routing
 * demonstrations (the DA's own, Banking77's 80% included) and scored on the same held-out items,
 * with the paired difference DA − baseline and its 95% t-interval over splits (issue 20).
 */
async function routingEval(
  domain: ReturnType<typeof bankingDomain>,
  g: GlobalOptions,
  splits: number,
  baseline: 'tfidf' | undefined,
  session: SessionSettings,
): Promise<void> {
  const hooks = (label: string) => {
    const bar = progressBar(label);
    return { bar, hooks: { onStep: (p: { step: number; totalSteps: number }) => bar.update(p.step, p.totalSteps) } };
  };
  const seeds = Array.from({ length: splits }, (_, i) => g.seed + i);
  const toolLabels = true;
  const bankRuns: { seed: number; da: RoutingReport; baseline?: BaselineRoutingReport }[] = [];
  for (const seed of seeds) {
    const h = hooks(seed === g.seed ? 'sft on the bank' : `sft on the bank, split ${seed}`);
    const r = await bankRoutingEval(domain, { seed, session, hooks: h.hooks });
    h.bar.stop();
    await r.trained.model.dispose();
    const base = baseline ? tfidfRouting(r.trained.routingItems, { bank: r.trained.heldout }, { toolLabels }).bank : undefined;
    bankRuns.push({ seed, da: r.report, ...(base ? { baseline: base } : {}) });
  }
  const bank = bankRuns[0]!.da;
  const perSplit = bankRuns.map((x) => ({ seed: x.seed, accuracy: x.da.accuracy, n: x.da.n }));
  const spread = spreadOf(perSplit.map((x) => x.accuracy));
  const dir = process.env.BANKING77_DIR;
  const b77Runs: {
    seed: number;
    da: RoutingReport;
    bankDa: RoutingReport;
    trainRows: number;
    baseline?: { b77: BaselineRoutingReport; bank: BaselineRoutingReport };
  }[] = [];
  if (dir) {
    for (const seed of seeds) {
      const b = hooks(seed === g.seed ? 'sft on the bank + 80% of Banking77' : `sft on the bank + 80% of Banking77, split ${seed}`);
      const r = await banking77RoutingEval(domain, dir, { seed, session, hooks: b.hooks });
      b.bar.stop();
      await r.trained.model.dispose();
      const base = baseline ? tfidfRouting(r.trained.routingItems, { b77: r.heldout, bank: r.trained.heldout }, { toolLabels }) : undefined;
      b77Runs.push({ seed, da: r.report, bankDa: r.bankReport, trainRows: r.trainRows, ...(base ? { baseline: base } : {}) });
    }
  }
  const b77 = b77Runs[0]
    ? { accuracy: b77Runs[0].da.accuracy, n: b77Runs[0].da.n, trainRows: b77Runs[0].trainRows, bankAccuracy: b77Runs[0].bankDa.accuracy }
    : null;
  const comparisons = baseline
    ? {
        name: baseline,
        features: DEFAULT_TFIDF,
        logreg: DEFAULT_LOGREG,
        bankHeldout: compare(bankRuns.map((x) => ({ seed: x.seed, da: x.da, baseline: x.baseline! }))),
        ...(b77Runs.length
          ? {
              banking77Heldout: compare(b77Runs.map((x) => ({ seed: x.seed, da: x.da, baseline: x.baseline!.b77 }))),
              banking77BankHeldout: compare(b77Runs.map((x) => ({ seed: x.seed, da: x.bankDa, baseline: x.baseline!.bank }))),
            }
          : {}),
      }
    : null;
  const b77Skipped = `skipped: set BANKING77_DIR to a folder with Banking77's train.csv`;
  const doc = {
    seed: g.seed,
    bankHeldout: {
      accuracy: bank.accuracy,
      n: bank.n,
      askRate: bank.askRate,
      toolOnlyAccuracy: bank.toolOnlyAccuracy,
      perStyle: bank.perStyle,
    },
    ...(splits > 1 ? { bankSplits: { perSplit, ...spread } } : {}),
    banking77Heldout: b77 ?? b77Skipped,
    ...(splits > 1 && b77Runs.length
      ? {
          banking77Splits: {
            perSplit: b77Runs.map((x) => ({ seed: x.seed, accuracy: x.da.accuracy, n: x.da.n, bankAccuracy: x.bankDa.accuracy })),
            ...spreadOf(b77Runs.map((x) => x.da.accuracy)),
          },
        }
      : {}),
    ...(comparisons ? { baseline: comparisons } : {}),
  };
  if (g.json) {
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    `tool-routing accuracy of a DA trained by SFT (seed ${g.seed}):\n` +
      `  bank held-out slice: ${pct(bank.accuracy)} of ${bank.n} utterances never trained on` +
      ` (${Object.entries(bank.perStyle)
        .map(([style, x]) => `${style} ${pct(x.n ? x.correct / x.n : 0)} of ${x.n}`)
        .join(', ')})\n` +
      (splits > 1
        ? `  bank held-out slices of seeds ${g.seed}–${g.seed + splits - 1}: mean ${pct(spread.mean)} (sd ${pct(spread.sd)}, min ${pct(spread.min)}, max ${pct(spread.max)}): ` +
          `${perSplit.map((x) => `${pct(x.accuracy)} of ${x.n}`).join(', ')}\n`
        : '') +
      (b77 ? `  Banking77 held-out 20%: ${pct(b77.accuracy)} of ${b77.n} (trained on ${b77.trainRows} rows + the bank)\n` : `  Banking77: ${b77Skipped}\n`) +
      (splits > 1 && b77Runs.length
        ? `  Banking77 held-out 20% of seeds ${g.seed}–${g.seed + splits - 1}: ${b77Runs.map((x) => pct(x.da.accuracy)).join(', ')}\n`
        : ''),
  );
  if (comparisons) {
    process.stdout.write(
      `\nTF-IDF baseline (word 1–2 + char_wb 2–5 grams, sublinear tf, softmax regression; intent → tool), trained on each split's routing demonstrations:\n` +
        comparisonTable('bank held-out slice (SFT on the bank):', comparisons.bankHeldout) +
        (comparisons.banking77Heldout
          ? `\n${comparisonTable('Banking77 held-out 20% (SFT on the bank + 80% of Banking77):', comparisons.banking77Heldout)}`
          : '') +
        (comparisons.banking77BankHeldout
          ? `\n${comparisonTable('bank held-out slice (SFT on the bank + 80% of Banking77):', comparisons.banking77BankHeldout)}`
          : ''),
    );
  }
}

/** `--episodes` when not given: what a paper run's held-out evaluation plays (with --panel: PANEL_EPISODES_PER_SCENARIO, as a study's panel). */
const HELDOUT_EPISODES = PRESETS.paper.config.eval.episodesPerScenario;

export function registerEval(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('eval')
      .description('held-out evaluation of a DA: routing accuracy, strict PASS, FAIL, mean reward, lookup-first; deployment gate')
      .option('--da <spec>', 'DA policy: scripted | latest | a checkpoint name', 'scripted')
      .option('--ca <spec>', 'the CA to evaluate against', 'scripted')
      .option(...JUDGE_OPTION)
      .option('--runs <n>', 'runs over the held-out set, seeds seed..seed+n−1 (the paper averages 2)', positiveInt('--runs', RUN_CONFIG_BOUNDS.evalRuns), 2)
      .option(
        '--episodes <n>',
        `episodes per held-out scenario per run (default: ${HELDOUT_EPISODES}, as the paper preset's runs evaluate; with --panel ${PANEL_EPISODES_PER_SCENARIO} per counterpart, as a study's panel)`,
        positiveInt('--episodes', RUN_CONFIG_BOUNDS.episodesPerScenario),
      )
      .option('--gate-episodes <n>', 'episodes per deployment-gate scenario per run', positiveInt('--gate-episodes', RUN_CONFIG_BOUNDS.episodesPerScenario), 9)
      .option(
        '--mads-episodes <n>',
        'episodes per robustness scenario per run, for MADS L-1/L-2 by complexity and adversity',
        positiveInt('--mads-episodes', RUN_CONFIG_BOUNDS.episodesPerScenario),
        4,
      )
      .option(
        '--routing',
        "instead: SFT a DA with --seed and report its tool-routing accuracy on the bank's held-out slice, and on a held-out 20% of Banking77 when BANKING77_DIR is set",
        false,
      )
      .option(
        '--splits <n>',
        'with --routing: also SFT on the splits of seeds seed+1 … seed+n−1 and report the mean and spread',
        positiveInt('--splits', RUN_CONFIG_BOUNDS.evalRuns),
        1,
      )
      .option(
        '--baseline <name>',
        "with --routing: train a peer baseline on each split's routing demonstrations and report it beside the DA with the paired difference (tfidf)",
      )
      .option(
        '--panel <list>',
        "instead: counterpart shift (IB-RL) — the DA against a panel of CAs that share nothing with its training: auto (scripted, other runs' final CAs, human customer episodes, LLM CAs) or SPEC,SPEC…; per counterpart, averaged, and the mismatch gap",
      ),
  ).action(
    async (
      opts: DeviceOptions & {
        da: string;
        ca: string;
        judge: string;
        runs: number;
        episodes?: number;
        gateEpisodes: number;
        madsEpisodes: number;
        routing: boolean;
        splits: number;
        baseline?: string;
        panel?: string;
      },
    ) => {
      const g = globals();
      if (opts.panel !== undefined) {
        if (opts.routing) throw new UsageError('--panel and --routing are two different evaluations; give one');
        return panelEval(opts.da, opts.panel, g, opts.runs, opts.episodes ?? PANEL_EPISODES_PER_SCENARIO, (await deviceSession(opts)).session);
      }
      if (opts.baseline !== undefined && opts.baseline !== 'tfidf') throw new UsageError(`--baseline: unknown baseline "${opts.baseline}" (expected tfidf)`);
      if (opts.baseline !== undefined && !opts.routing) throw new UsageError('--baseline needs --routing');
      const { session } = await deviceSession(opts);
      if (opts.routing) return routingEval(bankingDomain(), g, opts.splits, opts.baseline, session);
      // The robustness set includes the lab's custom scenarios.
      const domain = labDomainAt(g.db);
      const da = await resolveDa(opts.da, domain, g, { session });
      const ca = await resolveCa(opts.ca, domain, g, { session });
      const judge = resolveJudge(opts.judge, g);
      const bar = progressBar('eval');
      const seeds = Array.from({ length: opts.runs }, (_, i) => g.seed + i);
      const r = await evaluateDa({
        domain,
        da,
        ca,
        judge,
        config: DEFAULT_CONFIG,
        seeds,
        episodesPerScenario: opts.episodes ?? HELDOUT_EPISODES,
        gateEpisodesPerScenario: opts.gateEpisodes,
        onProgress: (d, t) => bar.update(d, t),
      });
      bar.stop();
      const madsBar = progressBar('robustness (MADS L-1/L-2)');
      const mads = await evaluateMads({
        domain,
        da,
        ca,
        judge,
        config: DEFAULT_CONFIG,
        seeds,
        episodesPerScenario: opts.madsEpisodes,
        onProgress: (d, t) => madsBar.update(d, t),
      });
      madsBar.stop();
      const h = r.heldout;
      const daLabel = policyLabel(da.name, da.checkpoint);
      const caLabel = policyLabel(ca.name, ca.checkpoint);
      if (g.json) {
        process.stdout.write(
          JSON.stringify({ da: da.name, ca: ca.name, daCheckpoint: da.checkpoint ?? null, caCheckpoint: ca.checkpoint ?? null, seeds, ...r, mads }, null, 2) +
            '\n',
        );
        return;
      }
      process.stdout.write(
        `${table(
          ['metric', daLabel],
          [
            ['tool-routing accuracy [95% CI]', rateWithInterval(h.routingAccuracy, h.episodes)],
            ['strict PASS [95% CI]', rateWithInterval(h.strictPass, h.episodes)],
            ['FAIL', pct(h.fail)],
            ['mean episode reward', h.meanReward.toFixed(2)],
            ['lookup-first rate', pct(h.lookupFirst)],
          ],
          ['l', 'r'],
        )}\n\n${h.episodes} held-out episodes (${seeds.length} runs) against CA ${caLabel}; [95% CI]: Wilson interval\n` +
          `deployment gate (${r.gate.scenarios.length} non-negotiable scenarios, ${r.gate.episodes} episodes): DA win rate ${pct(r.gate.daWinRate)} ` +
          `${r.gate.passed ? '≥' : '<'} ${pct(r.gate.threshold)} → ${r.gate.passed ? 'PASSED' : 'NOT PASSED'}\n\n` +
          madsTable(mads),
      );
    },
  );
}

/** `eval --panel`: the DA against its panel of counterparts (host/panel/panel-eval.ts). */
async function panelEval(daSpec: string, list: string, g: GlobalOptions, runs: number, episodes: number, session: SessionSettings): Promise<void> {
  const panel =
    list.trim() === 'auto'
      ? 'auto'
      : list
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
  if (panel !== 'auto' && panel.length === 0) throw new UsageError('--panel needs auto or a list of SPECs (scripted,human,CA7,…)');
  const started = Date.now();
  let bar: Progress | null = null;
  let current = '';
  let r: PanelEvaluation;
  try {
    r = await evaluatePanel({
      db: g.db,
      domain: labDomainAt(g.db),
      da: daSpec,
      panel,
      session,
      protocol: { seeds: Array.from({ length: runs }, (_, i) => g.seed + i), episodesPerScenario: episodes },
      onProgress: (label, d, t) => {
        if (label !== current) {
          bar?.stop();
          bar = progressBar(`panel: ${daSpec} vs ${label}`);
          current = label;
        }
        bar!.update(d, t);
      },
    });
  } catch (e) {
    if (e instanceof PanelError || e instanceof CheckpointError)
      throw new UsageError(e instanceof CheckpointError ? `--da "${daSpec}": ${e.message}` : e.message, { cause: e });
    throw e;
  } finally {
    (bar as Progress | null)?.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  if (g.json) {
    process.stdout.write(JSON.stringify({ ...r, seconds }, null, 2) + '\n');
    return;
  }
  process.stdout.write(panelText(r) + `${seconds.toFixed(1)} s\n`);
}

/** MADS L-2 (and L-1 where scenarios have reference actions) by complexity and by adversity. */
function madsTable(m: MadsReport & { scenarios: string[] }): string {
  const row = (label: string, x: MadsGroup) => [
    label,
    String(x.episodes),
    pct(x.l2),
    pct(x.l2Complete),
    x.l1 ? pct(x.l1.actionTypeRecall) : '–',
    x.l1 ? pct(x.l1.toolF1) : '–',
    x.l1 ? pct(x.l1.paramExactMatch) : '–',
    x.l1 ? x.l1.responseSimilarity.toFixed(2) : '–',
  ];
  const rows = [
    row('all', m.overall),
    ...Object.entries(m.byComplexity).map(([k, x]) => row(k, x)),
    ...Object.entries(m.byAdversity).map(([k, x]) => row(`adversity: ${k}`, x)),
  ];
  return `robustness scenarios (${m.scenarios.length}): MADS L-2 (stop at first error) and L-1 (reference actions)\n${table(
    ['group', 'episodes', 'L-2', 'L-2 complete', 'action recall', 'tool F1', 'param exact', 'response sim'],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  )}\n`;
}
