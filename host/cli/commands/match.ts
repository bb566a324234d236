/** `sparring match`: one arena match, stored in the lab and printed as a table or JSON. */
import { RUN_CONFIG_BOUNDS } from '../../../core/coevolution/run-config';
import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULT_CONFIG, withEpisodes } from '../../../core/config';
import type { SparringConfig } from '../../../core/config';
import { selectScenarios, SCENARIO_SETS } from '../../../core/arena/scenarios';
import type { ScenarioSetName } from '../../../core/arena/scenarios';
import { labDomainAt } from '../lab-domain';
import { labDomain } from '../../store/scenario-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { positiveInt, UsageError } from '../options';
import { runArena } from '../../coevolution/actors';
import { JUDGE_OPTION, matchConcurrency, pendingLlmCalls, resolveCa, resolveDa, resolveJudge } from '../policies';
import { runAndStoreMatch } from '../../llm/store-match';
import { progressBar } from '../progress';
import { policyLabel } from '../../format/policy';
import { pct, table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

interface MatchOptions extends DeviceOptions {
  da: string;
  ca: string;
  episodes: number;
  scenarios: ScenarioSetName;
  judge: string;
  run?: string;
  speak?: 'train' | 'validation';
}

export function registerMatch(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('match')
      .description('one arena match: per-scenario DA win rates, W_DA and the fraud reference rate')
      .option('--da <spec>', 'DA policy: scripted | latest | a checkpoint name | an LLM endpoint', 'scripted')
      .option('--ca <spec>', 'CA policy: scripted | latest | a checkpoint name | an LLM endpoint', 'scripted')
      .option(
        '--episodes <n>',
        'episodes per scenario (N)',
        positiveInt('--episodes', RUN_CONFIG_BOUNDS.episodesPerScenario),
        DEFAULT_CONFIG.arena.episodesPerScenario,
      )
      .option(...JUDGE_OPTION)
      .addOption(new Option('--scenarios <set>', 'which scenarios to play').choices(SCENARIO_SETS).default('arena'))
      .option(
        '--run <id>',
        "play as that run's own matches do: its config, adversities and judge, and a CA speaking the run's train slice of the bank (--seed a match's stored seed replays it)",
      )
      .addOption(
        new Option(
          '--speak <slice>',
          "with --run: which of the run's bank slices a checkpoint CA speaks (validation: the sentences its config's validation.bankShare kept out of the run)",
        ).choices(['train', 'validation']),
      ),
  ).action(async (opts: MatchOptions, cmd: Command) => {
    const g = globals();
    const run = opts.run ? labRunArena(g.db, opts.run) : null;
    if (opts.speak && !run) throw new UsageError("match --speak: needs --run (the slices are a run's)");
    if (run && opts.speak === 'validation' && !run.speakValidation)
      throw new UsageError(`match --run ${opts.run} --speak validation: the run keeps no validation slice (its config has no validation.bankShare)`);
    const speak = opts.speak === 'validation' ? run?.speakValidation : run?.speak;
    if (run && cmd.getOptionValueSource('judge') === 'cli' && opts.judge !== run.judge)
      throw new UsageError(`match --run ${opts.run}: the run's judge is ${run.judge}; leave --judge out`);
    const domain = run?.domain ?? labDomainAt(g.db);
    const { session, device } = await deviceSession(opts);
    const da = await resolveDa(opts.da, domain, g, { session });
    const ca = await resolveCa(opts.ca, domain, g, { session }, speak);
    const judge = resolveJudge(run?.judge ?? opts.judge, g);
    const scenarios = selectScenarios(domain, opts.scenarios);
    const base = run?.sparring ?? DEFAULT_CONFIG;
    // --episodes when given; with --run and without it, the run's own match size.
    const episodes = run && cmd.getOptionValueSource('episodes') !== 'cli' ? base.arena.episodesPerScenario : opts.episodes;
    const config: SparringConfig = withEpisodes(base, episodes);

    const store = openSqliteStore(g.db);
    try {
      const matchId = `M${store.listMatches().length + 1}`;
      const bar = progressBar(`match ${matchId}`);
      const { match, episodes, llm } = await runAndStoreMatch(
        store,
        {
          matchId,
          createdAt: new Date().toISOString(),
          domain,
          scenarios,
          scenarioSet: opts.scenarios,
          da,
          ca,
          judge,
          config,
          seed: g.seed,
          concurrency: matchConcurrency(da, ca, 32),
          ...(run?.symbolic ? { symbolic: run.symbolic } : {}),
          onProgress: (d, t) => bar.update(d, t),
        },
        pendingLlmCalls(g.db),
      ).finally(() => bar.stop());
      // All or nothing (host/llm/store-match.ts): a failure stores no episode, no call record
      // and no cached answer.

      const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
      const meanRDa = mean(episodes.map((e) => e.rDa));
      const meanRCa = mean(episodes.map((e) => e.rCa));
      const wCa = match.wDa === null ? null : 1 - match.wDa;
      if (g.json) {
        const doc = {
          matchId: match.id,
          db: g.db,
          seed: match.seed,
          da: match.daSpec,
          ca: match.caSpec,
          daCheckpoint: match.daCheckpoint,
          caCheckpoint: match.caCheckpoint,
          scenarioSet: match.scenarioSet,
          episodesPerScenario: match.episodesPerScenario,
          episodes: episodes.length,
          wDa: match.wDa,
          wCa,
          fraudRate: match.fraudRate,
          meanRDa,
          meanRCa,
          perScenario: match.perScenario,
          device,
          ...(llm ? { llm } : {}),
        };
        process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
        return;
      }
      const rows = match.perScenario.map((s) => [s.scenarioId, s.fraudReference ? 'fraud ref' : 'CA-winnable', s.episodes, s.daWins, pct(s.daWinRate)]);
      process.stdout.write(
        `${table(['scenario', 'kind', 'episodes', 'DA wins', 'DA win rate'], rows, ['l', 'l', 'r', 'r', 'r'])}\n\n` +
          `W_DA (CA-winnable scenarios): ${pct(match.wDa)}    W_CA: ${pct(wCa)}\n` +
          `fraud reference rate:         ${pct(match.fraudRate)}\n` +
          `DA ${policyLabel(match.daSpec, match.daCheckpoint)}    CA ${policyLabel(match.caSpec, match.caCheckpoint)}\n` +
          `mean r_DA ${meanRDa.toFixed(3)}    mean r_CA ${meanRCa.toFixed(3)}    ${episodes.length} episodes stored as ${match.id} in ${g.db}\n` +
          (llm
            ? `LLM calls: ${llm.calls} (${llm.cached} from the lab's cache), ${llm.tokensIn} tokens in, ${llm.tokensOut} out, ` +
              `${(llm.latencyMs / 1000).toFixed(1)} s of calls; per episode ${(llm.tokensOut / episodes.length).toFixed(1)} tokens out\n`
            : ''),
      );
    } finally {
      store.close();
    }
  });
}

/** `runArena` of the lab at `dbPath`; a UsageError when it holds no such run. */
function labRunArena(dbPath: string, runId: string) {
  const store = openSqliteStore(dbPath);
  try {
    const run = runArena(store.db, runId, labDomain(store.db));
    if (!run) throw new UsageError(`match --run: no run ${runId} in ${dbPath}`);
    return run;
  } finally {
    store.close();
  }
}
