/** `sparring eval --da SPEC`: held-out metrics (RL-ADA Table 4) and the deployment gate. */
import type { Command } from 'commander';
import { evaluateDa } from '../../../core/arena/evaluate';
import { DEFAULT_CONFIG } from '../../../core/config';
import { judgeEpisode } from '../../../core/judge/judge';
import { bankingDomain } from '../../domain-files';
import { positiveInt } from '../options';
import { resolveCa, resolveDa } from '../policies';
import { progressBar } from '../progress';
import { pct, table } from '../table';
import type { GlobalOptions } from '../main';

export function registerEval(program: Command, globals: () => GlobalOptions): void {
  program
    .command('eval')
    .description('held-out evaluation of a DA: routing accuracy, strict PASS, FAIL, mean reward, lookup-first; deployment gate')
    .option('--da <spec>', 'DA policy: scripted | latest | a checkpoint name', 'scripted')
    .option('--ca <spec>', 'the CA to evaluate against', 'scripted')
    .option('--runs <n>', 'runs over the held-out set, seeds seed..seed+n−1 (the paper averages 2)', positiveInt('--runs'), 2)
    .option('--episodes <n>', 'episodes per held-out scenario per run', positiveInt('--episodes'), 1)
    .option('--gate-episodes <n>', 'episodes per deployment-gate scenario per run', positiveInt('--gate-episodes'), 9)
    .action(async (opts: { da: string; ca: string; runs: number; episodes: number; gateEpisodes: number }) => {
      const g = globals();
      const domain = bankingDomain();
      const da = await resolveDa(opts.da, domain, g);
      const ca = await resolveCa(opts.ca, domain, g);
      const bar = progressBar('eval');
      const seeds = Array.from({ length: opts.runs }, (_, i) => g.seed + i);
      const r = await evaluateDa({
        domain, da, ca, judge: judgeEpisode, config: DEFAULT_CONFIG, seeds, episodesPerScenario: opts.episodes, gateEpisodesPerScenario: opts.gateEpisodes,
        onProgress: (d, t) => bar.update(d, t),
      });
      bar.stop();
      const h = r.heldout;
      if (g.json) {
        process.stdout.write(JSON.stringify({ da: da.name, ca: ca.name, seeds, ...r }, null, 2) + '\n');
        return;
      }
      process.stdout.write(
        `${table(
          ['metric', da.name],
          [
            ['tool-routing accuracy', pct(h.routingAccuracy)],
            ['strict PASS', pct(h.strictPass)],
            ['FAIL', pct(h.fail)],
            ['mean episode reward', h.meanReward.toFixed(2)],
            ['lookup-first rate', pct(h.lookupFirst)],
          ],
          ['l', 'r'],
        )}\n\n${h.episodes} held-out episodes (${seeds.length} runs) against CA ${ca.name}\n` +
          `deployment gate (${r.gate.scenarios.length} non-negotiable scenarios, ${r.gate.episodes} episodes): DA win rate ${pct(r.gate.daWinRate)} ` +
          `${r.gate.passed ? '≥' : '<'} ${pct(r.gate.threshold)} → ${r.gate.passed ? 'PASSED' : 'NOT PASSED'}\n`,
      );
    });
}
