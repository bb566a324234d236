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
import { registerDoctor } from './commands/doctor';
import { seedInt, UsageError } from './options';
import { defaultLabPath } from './paths';

export interface GlobalOptions {
  db: string;
  seed: number;
  json: boolean;
}

process.env.ORT_DISABLE_TELEMETRY ??= '1';

const program = new Command('sparring')
  .description('Sparring: co-evolve a customer-support agent and an adversarial customer from world feedback (RL-ADA).')
  .option('--db <path>', 'the lab file (SQLite)', defaultLabPath())
  .option('--seed <n>', 'random seed', seedInt, 1)
  .option('--json', 'print one JSON document on stdout', false)
  .showHelpAfterError()
  .exitOverride();

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
registerScenarios(program, globals);
registerDoctor(program, globals);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
  if (e instanceof UsageError || e instanceof DomainFileError || e instanceof JudgeSetError || e instanceof RunConfigError) {
    process.stderr.write(`sparring: ${e.message}\n`);
    process.exit(2);
  }
  const err = e as Error;
  process.stderr.write(`sparring: ${err.message}\n`);
  if (process.env.SPARRING_DEBUG) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
}
