/** `sparring eval --da SPEC`: held-out metrics (RL-ADA Table 4) and the deployment gate. */
import type { Command } from 'commander';
import { evaluateDa, evaluateMads } from '../../../core/arena/evaluate';
import type { MadsGroup, MadsReport } from '../../../core/validators/mads-metrics';
import { DEFAULT_CONFIG } from '../../../core/config';
import { judgeEpisode } from '../../../core/judge/judge';
import { bankingDomain } from '../../domain-files';
import { labDomainAt } from '../lab-domain';
import { banking77RoutingEval, bankRoutingEval } from '../../routing-eval';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { positiveInt } from '../options';
import type { SessionSettings } from '../../../models/session';
import { rateWithInterval } from '../../report/heldout-rows';
import { resolveCa, resolveDa } from '../policies';
import { progressBar } from '../progress';
import { policyLabel } from '../../format/policy';
import { pct, table } from '../../format/table';
import type { GlobalOptions } from '../main';

/**
 * SFT routing accuracy (issue 3's quality figures): the bank's held-out slice, and Banking77 80/20.
 * With `splits` > 1 the bank figure is also taken on the held-out slices of seeds seed+1 … seed+splits−1
 * (each a fresh SFT), so a change is judged by its mean and spread rather than by one split.
 */
async function routingEval(domain: ReturnType<typeof bankingDomain>, g: GlobalOptions, splits: number, session: SessionSettings): Promise<void> {
  const hooks = (label: string) => {
    const bar = progressBar(label);
    return { bar, hooks: { onStep: (p: { step: number; totalSteps: number }) => bar.update(p.step, p.totalSteps) } };
  };
  const a = hooks('sft on the bank');
  const bank = await bankRoutingEval(domain, { seed: g.seed, session, hooks: a.hooks });
  a.bar.stop();
  await bank.trained.model.dispose();
  const perSplit = [{ seed: g.seed, accuracy: bank.report.accuracy, n: bank.report.n }];
  for (let seed = g.seed + 1; seed < g.seed + splits; seed++) {
    const h = hooks(`sft on the bank, split ${seed}`);
    const r = await bankRoutingEval(domain, { seed, session, hooks: h.hooks });
    h.bar.stop();
    await r.trained.model.dispose();
    perSplit.push({ seed, accuracy: r.report.accuracy, n: r.report.n });
  }
  const accs = perSplit.map((x) => x.accuracy);
  const mean = accs.reduce((x, y) => x + y, 0) / accs.length;
  const spread = { mean, sd: Math.sqrt(accs.reduce((x, y) => x + (y - mean) ** 2, 0) / accs.length), min: Math.min(...accs), max: Math.max(...accs) };
  const dir = process.env.BANKING77_DIR;
  let b77: { accuracy: number; n: number; trainRows: number; bankAccuracy: number } | null = null;
  if (dir) {
    const b = hooks('sft on the bank + 80% of Banking77');
    const r = await banking77RoutingEval(domain, dir, { seed: g.seed, hooks: b.hooks });
    b.bar.stop();
    await r.trained.model.dispose();
    b77 = { accuracy: r.report.accuracy, n: r.report.n, trainRows: r.trainRows, bankAccuracy: r.bankReport.accuracy };
  }
  const doc = {
    seed: g.seed,
    bankHeldout: {
      accuracy: bank.report.accuracy, n: bank.report.n, askRate: bank.report.askRate, toolOnlyAccuracy: bank.report.toolOnlyAccuracy, perStyle: bank.report.perStyle,
    },
    ...(splits > 1 ? { bankSplits: { perSplit, ...spread } } : {}),
    banking77Heldout: b77 ?? `skipped: set BANKING77_DIR to a folder with Banking77's train.csv`,
  };
  if (g.json) {
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    `tool-routing accuracy of a DA trained by SFT (seed ${g.seed}):\n` +
      `  bank held-out slice: ${pct(bank.report.accuracy)} of ${bank.report.n} utterances never trained on` +
      ` (${Object.entries(bank.report.perStyle).map(([style, x]) => `${style} ${pct(x.n ? x.correct / x.n : 0)} of ${x.n}`).join(', ')})\n` +
      (splits > 1
        ? `  bank held-out slices of seeds ${g.seed}–${g.seed + splits - 1}: mean ${pct(spread.mean)} (sd ${pct(spread.sd)}, min ${pct(spread.min)}, max ${pct(spread.max)}): ` +
          `${perSplit.map((x) => `${pct(x.accuracy)} of ${x.n}`).join(', ')}\n`
        : '') +
      (b77 ? `  Banking77 held-out 20%: ${pct(b77.accuracy)} of ${b77.n} (trained on ${b77.trainRows} rows + the bank)\n` : `  Banking77: ${doc.banking77Heldout}\n`),
  );
}

export function registerEval(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(program
    .command('eval')
    .description('held-out evaluation of a DA: routing accuracy, strict PASS, FAIL, mean reward, lookup-first; deployment gate')
    .option('--da <spec>', 'DA policy: scripted | latest | a checkpoint name', 'scripted')
    .option('--ca <spec>', 'the CA to evaluate against', 'scripted')
    .option('--runs <n>', 'runs over the held-out set, seeds seed..seed+n−1 (the paper averages 2)', positiveInt('--runs'), 2)
    .option('--episodes <n>', 'episodes per held-out scenario per run', positiveInt('--episodes'), 1)
    .option('--gate-episodes <n>', 'episodes per deployment-gate scenario per run', positiveInt('--gate-episodes'), 9)
    .option('--mads-episodes <n>', 'episodes per robustness scenario per run, for MADS L-1/L-2 by complexity and adversity', positiveInt('--mads-episodes'), 4)
    .option('--routing', 'instead: SFT a DA with --seed and report its tool-routing accuracy on the bank\'s held-out slice, and on a held-out 20% of Banking77 when BANKING77_DIR is set', false)
    .option('--splits <n>', 'with --routing: also SFT on the bank splits of seeds seed+1 … seed+n−1 and report the mean and spread', positiveInt('--splits'), 1))
    .action(async (opts: DeviceOptions & { da: string; ca: string; runs: number; episodes: number; gateEpisodes: number; madsEpisodes: number; routing: boolean; splits: number }) => {
      const g = globals();
      const { session } = await deviceSession(opts);
      if (opts.routing) return routingEval(bankingDomain(), g, opts.splits, session);
      // The robustness set includes the lab's custom scenarios.
      const domain = labDomainAt(g.db);
      const da = await resolveDa(opts.da, domain, g, { session });
      const ca = await resolveCa(opts.ca, domain, g, { session });
      const bar = progressBar('eval');
      const seeds = Array.from({ length: opts.runs }, (_, i) => g.seed + i);
      const r = await evaluateDa({
        domain, da, ca, judge: judgeEpisode, config: DEFAULT_CONFIG, seeds, episodesPerScenario: opts.episodes, gateEpisodesPerScenario: opts.gateEpisodes,
        onProgress: (d, t) => bar.update(d, t),
      });
      bar.stop();
      const madsBar = progressBar('robustness (MADS L-1/L-2)');
      const mads = await evaluateMads({
        domain, da, ca, judge: judgeEpisode, config: DEFAULT_CONFIG, seeds, episodesPerScenario: opts.madsEpisodes, onProgress: (d, t) => madsBar.update(d, t),
      });
      madsBar.stop();
      const h = r.heldout;
      const daLabel = policyLabel(da.name, da.checkpoint);
      const caLabel = policyLabel(ca.name, ca.checkpoint);
      if (g.json) {
        process.stdout.write(JSON.stringify({ da: da.name, ca: ca.name, daCheckpoint: da.checkpoint ?? null, caCheckpoint: ca.checkpoint ?? null, seeds, ...r, mads }, null, 2) + '\n');
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
    });
}

/** MADS L-2 (and L-1 where scenarios have reference actions) by complexity and by adversity. */
function madsTable(m: MadsReport & { scenarios: string[] }): string {
  const row = (label: string, x: MadsGroup) => [
    label, String(x.episodes), pct(x.l2), pct(x.l2Complete),
    x.l1 ? pct(x.l1.actionTypeRecall) : '–', x.l1 ? pct(x.l1.toolF1) : '–', x.l1 ? pct(x.l1.paramExactMatch) : '–', x.l1 ? x.l1.responseSimilarity.toFixed(2) : '–',
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
