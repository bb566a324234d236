/**
 * `sparring domains list | validate DIR | new NAME`: the domain packs (docs/domain-packs.md).
 * `list` shows the packs shipped in domains/, `validate` checks a pack folder (or a shipped pack
 * by name) and reports every problem at once as FILE: JSON path: what was expected, and `new`
 * writes a small but complete pack to start from, which `validate` accepts.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { validatePack, formatProblem } from '../../../core/domain-pack/validate';
import type { DomainPack } from '../../../core/domain-pack/schema';
import { listPackDirs, readPackTexts, resolvePackDir } from '../../domain-pack/read';
import { templatePackFiles } from '../../domain-pack/template';
import { isFreeFolder, writePackFiles } from '../../domain-pack/write';
import { table } from '../../format/table';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

/** One line of counts for a valid pack. */
function summary(p: DomainPack) {
  const count = (set: string) => p.scenarios.find((s) => s.set === set)?.scenarios.length ?? 0;
  return {
    name: p.manifest.name,
    title: p.manifest.title,
    tools: p.tools.tools.length,
    goalTools: p.tools.tools.filter((t) => t.goal).length,
    intents: p.intents.intents.length,
    arenaIntents: p.intents.intents.filter((i) => i.arena).length,
    utterances: p.utterances.utterances.length,
    scenarios: { arena: count('arena'), heldout: count('heldout'), robustness: count('robustness') },
  };
}

export function registerDomains(program: Command, globals: () => GlobalOptions): void {
  const cmd = program.command('domains').description('domain packs: the worlds the agents can train in (docs/domain-packs.md)');

  cmd
    .command('list')
    .description('the domain packs in domains/, each checked')
    .action(() => {
      const rows = listPackDirs().map(({ name, dir }) => {
        const r = validatePack(readPackTexts(dir));
        return r.ok ? { dir, ok: true as const, ...summary(r.pack) } : { dir, name, ok: false as const, problems: r.problems.length };
      });
      if (globals().json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      process.stdout.write(
        `${table(
          ['pack', 'title', 'tools', 'intents', 'utterances', 'arena/held-out/robustness', 'valid'],
          rows.map((r) =>
            r.ok
              ? [
                  r.name,
                  r.title,
                  `${r.tools} (${r.goalTools} goal)`,
                  `${r.intents} (${r.arenaIntents} arena)`,
                  String(r.utterances),
                  `${r.scenarios.arena}/${r.scenarios.heldout}/${r.scenarios.robustness}`,
                  'yes',
                ]
              : [r.name, '', '', '', '', '', `no: ${r.problems} problems (sparring domains validate ${r.name})`],
          ),
        )}\n`,
      );
    });

  cmd
    .command('validate')
    .argument('<dir>', 'a pack folder, or the name of a pack in domains/')
    .description('check a pack against the format and across its files; every problem is reported, as FILE: JSON path: expected')
    .action((dir: string) => {
      const folder = resolvePackDir(dir);
      const r = validatePack(readPackTexts(folder));
      const shown = path.relative(process.cwd(), folder) || '.';
      const problems = r.ok ? [] : r.problems.map((p) => ({ ...p, file: path.join(shown, p.file) }));
      if (globals().json) process.stdout.write(`${JSON.stringify(r.ok ? { ok: true, ...summary(r.pack) } : { ok: false, problems }, null, 2)}\n`);
      else if (r.ok) {
        const s = summary(r.pack);
        process.stdout.write(
          `${shown}: valid pack "${s.name}": ${s.tools} tools (${s.goalTools} goal), ${s.intents} intents (${s.arenaIntents} arena), ${s.utterances} utterances, scenarios ${s.scenarios.arena} arena / ${s.scenarios.heldout} held-out / ${s.scenarios.robustness} robustness\n`,
        );
      } else process.stderr.write(`${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map(formatProblem).join('\n')}\n`);
      if (!r.ok) process.exitCode = 1;
    });

  cmd
    .command('new')
    .argument('<name>', 'the pack name (lower case, digits and -)')
    .option('--dir <folder>', 'where to write it (default: ./NAME)')
    .description('write a small but complete pack to edit into your own world (validate accepts it as written)')
    .action((name: string, opts: { dir?: string }) => {
      if (!/^[a-z][a-z0-9-]*$/.test(name))
        throw new UsageError(`domains new: "${name}" is not a pack name (lower case letters, digits and -, starting with a letter)`);
      const dir = path.resolve(opts.dir ?? name);
      if (!isFreeFolder(dir)) throw new UsageError(`domains new: ${dir} exists and is not empty; nothing was written`);
      const written = writePackFiles(dir, templatePackFiles(name));
      if (globals().json) process.stdout.write(`${JSON.stringify({ dir, files: written.map((f) => path.relative(dir, f)) }, null, 2)}\n`);
      else
        process.stdout.write(
          `wrote pack "${name}" to ${dir} (${written.length} files); check it with: sparring domains validate ${path.relative(process.cwd(), dir) || '.'}\n`,
        );
    });
}
