/**
 * `sparring scenarios list|add FILE|remove ID`: the lab's scenarios, shipped and custom. A custom
 * scenario (one JSON object in FILE, the fields of a scenario file's entry) is checked by the
 * scenario schema and the taxonomy; every problem is reported as FILE: field: problem and nothing
 * is stored. Custom scenarios join the robustness set (`eval`, `match --scenarios robustness`,
 * `play --scenario`, and `run --adversities`'s robustness evaluation).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DomainFileError } from '../../../core/domain/schema';
import { bankingDomain } from '../../domain-files';
import { scenarioHandlers } from '../../engine/scenarios';
import { customScenarioStore } from '../../store/scenario-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { table } from '../../format/table';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

export function registerScenarios(program: Command, globals: () => GlobalOptions): void {
  const cmd = program.command('scenarios').description('scenarios: the shipped ones and the custom ones of this lab (robustness set)');
  /** The engine's scenario handlers on the lab of --db, closed after `work`. */
  const withLab = async <T>(work: (h: ReturnType<typeof scenarioHandlers>) => T | Promise<T>): Promise<T> => {
    const store = openSqliteStore(globals().db);
    try {
      return await work(scenarioHandlers(bankingDomain, customScenarioStore(store.db)));
    } finally {
      store.close();
    }
  };

  cmd
    .command('list')
    .description('every scenario with its set, complexity and adversities; custom ones marked')
    .action(() =>
      withLab(async (h) => {
        const list = await h['scenarios/list'](undefined);
        if (globals().json) return void process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        process.stdout.write(
          table(
            ['id', 'set', 'complexity', 'tool', 'adversities', ''],
            list.map((s) => [s.id, s.set, s.complexity, s.expectedTool, (s.adversities ?? []).map((a) => a.kind).join(', ') || '–', s.custom ? 'custom' : '']),
          ) + '\n',
        );
      }),
    );

  cmd
    .command('add')
    .argument('<file>', 'a JSON file holding one scenario')
    .option('--replace', 'replace the custom scenario of the same id')
    .description('store a custom scenario in the lab (checked first; nothing is stored when it has problems)')
    .action((file: string, opts: { replace?: boolean }) =>
      withLab(async (h) => {
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (e) {
          throw new UsageError(`scenarios add: cannot read ${file}: ${(e as Error).message}`);
        }
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (e) {
          throw new DomainFileError(file, '', `not valid JSON (${(e as Error).message})`);
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DomainFileError(file, '', 'expected one scenario (a JSON object)');
        const id = (value as { id?: unknown }).id;
        const r = await h['scenarios/save']({ scenario: value as never, ...(opts.replace && typeof id === 'string' ? { replaces: id } : {}) });
        if (!r.ok) throw new DomainFileError(file, '', r.problems.map((p) => `${p.field || '(scenario)'}: ${p.message}`).join('; '));
        if (globals().json) process.stdout.write(JSON.stringify(r.scenario, null, 2) + '\n');
        else process.stdout.write(`stored custom scenario ${r.scenario.id} (${r.scenario.complexity}, robustness set)\n`);
      }),
    );

  cmd
    .command('remove')
    .argument('<id>', 'a custom scenario id')
    .description('delete a custom scenario (its stored episodes stay)')
    .action((id: string) =>
      withLab(async (h) => {
        try {
          await h['scenarios/remove']({ id });
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        if (globals().json) process.stdout.write(JSON.stringify({ removed: id }) + '\n');
        else process.stdout.write(`removed custom scenario ${id}\n`);
      }),
    );
}
