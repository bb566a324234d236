/**
 * The `sparring` command line: one contract for users, tests and benchmarks (DESIGN.md §7).
 * Every command takes --db, --seed and --json; with --json, stdout carries exactly one JSON
 * document and progress goes to stderr.
 */
import { Command, CommanderError } from 'commander';
import { DomainFileError } from '../../core/domain/schema';
import { JudgeSetError } from '../../core/judge/judge-eval';
import { RunConfigError } from '../../core/coevolution/run-config';
import { registerMatch } from './commands/match';
import { registerEval } from './commands/eval';
import { registerRun } from './commands/run';
import { registerReport } from './commands/report';
import { registerExport } from './commands/export';
import { registerJudgeEval } from './commands/judge-eval';
import { registerImportBanking77 } from './commands/import-banking77';
import { registerRoute } from './commands/route';
import { registerBench } from './commands/bench';
import { registerExportModel } from './commands/export-model';
import { registerServe } from './commands/serve';
import { registerLabels } from './commands/labels';
import { registerPlay } from './commands/play';
import { registerDiff } from './commands/diff';
import { registerScenarios } from './commands/scenarios';
import { registerEnv } from './commands/env';
import { registerGym } from './commands/gym';
import { registerCheckpoints } from './commands/checkpoints';
import { registerModels } from './commands/models';
import { registerServeModel } from './commands/serve-model';
import { registerStudy } from './commands/study';
import { registerDoctor } from './commands/doctor';
import { registerLab } from './commands/lab';
import { registerRuns } from './commands/runs';
import { registerKnobs } from './commands/knobs';
import { registerBestResponse } from './commands/best-response';
import { registerCaPolicy } from './commands/ca-policy';
import { registerDomains } from './commands/domains';
import { seedInt, UsageError } from './options';
import { checkLabPath, defaultLabPath } from './paths';
import { flushPendingLlmCalls } from './policies';
import { isReadOnlyWrite } from '../store/sqlite-store';
import type { GlobalOptions } from './global-options';

process.env.ORT_DISABLE_TELEMETRY ??= '1';

// Output piped into a reader that stops early (`sparring export R1 | head`): the rest is not
// wanted, so end quietly, as other command-line tools do, rather than crash on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

const program = new Command('sparring')
  .description('Sparring: co-evolve a customer-support agent and an adversarial customer from world feedback (RL-ADA).')
  .option('--db <path>', 'the lab file (SQLite)', defaultLabPath())
  .option('--seed <n>', 'random seed', seedInt, 1)
  .option('--json', 'print one JSON document on stdout', false)
  .option('--create', 'create the folder of --db if it does not exist (a new lab there)', false)
  .option('--no-cache', "LLM endpoints: answer no call from the lab's response cache")
  // One line for a bad argument (commander's names the allowed choices), not the whole usage.
  .showHelpAfterError('(sparring --help, or sparring <command> --help, for usage)')
  .exitOverride()
  .hook('preAction', () => {
    const g = program.opts<GlobalOptions>();
    checkLabPath(g.db, {
      create: g.create ?? false,
      option: process.env.SPARRING_DB && program.getOptionValueSource('db') === 'default' ? 'SPARRING_DB' : '--db',
    });
  });

const globals = () => program.opts<GlobalOptions>();
registerMatch(program, globals);
registerEval(program, globals);
registerRun(program, globals);
registerReport(program, globals);
registerExport(program, globals);
registerJudgeEval(program, globals);
registerImportBanking77(program, globals);
registerRoute(program, globals);
registerBench(program, globals);
registerExportModel(program, globals);
registerServe(program, globals);
registerLabels(program, globals);
registerPlay(program, globals);
registerDiff(program, globals);
registerBestResponse(program, globals);
registerCaPolicy(program, globals);
registerScenarios(program, globals);
registerEnv(program, globals);
registerGym(program, globals);
registerCheckpoints(program, globals);
registerModels(program, globals);
registerServeModel(program, globals);
registerStudy(program, globals);
registerKnobs(program, globals);
registerDoctor(program, globals);
registerLab(program, globals);
registerRuns(program, globals);
registerDomains(program, globals);

try {
  await program.parseAsync(process.argv);
  // LLM calls of a command that succeeded (eval, play, route, diff…): their records and answers
  // go into the lab; a failed command writes none.
  flushPendingLlmCalls();
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
  if (e instanceof UsageError || e instanceof DomainFileError || e instanceof JudgeSetError || e instanceof RunConfigError) {
    process.stderr.write(`sparring: ${e.message}\n`);
    process.exit(2);
  }
  const err = e as Error;
  if (isReadOnlyWrite(err)) {
    process.stderr.write(`sparring: ${program.opts<GlobalOptions>().db} is read-only: this command writes to the lab (commands that only read it work)\n`);
    if (process.env.SPARRING_DEBUG) process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  }
  process.stderr.write(`sparring: ${err.message}\n`);
  if (process.env.SPARRING_DEBUG) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
}
