/** `sparring judge-eval`: a judge (the builtin rule judge, or an LLM endpoint) against labelled conversations (RL-ADA Table 1). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { evaluateJudgeWith, parseJudgeSet } from '../../../core/judge/judge-eval';
import type { JudgeEvalReport, SetVocabulary } from '../../../core/judge/judge-eval';
import { PackError } from '../../../core/domain-pack/validate';
import { loadPack, resolvePackDir } from '../../domain-pack/read';
import { ASSETS_DIR } from '../../domain-files';
import { UsageError } from '../options';
import { JUDGE_OPTION, resolveJudge } from '../policies';
import { table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

export const DEFAULT_LABELS = path.join(ASSETS_DIR, 'judge', 'labelled.json');
/** Every labelled set the lab ships (assets/judge/README.md): the first, the held-out one, the third (issue 14). */
export const ALL_LABELS = ['labelled.json', 'heldout.json', 'labelled-3.json'].map((f) => path.join(ASSETS_DIR, 'judge', f));

const round = (x: number) => Math.round(x * 1000) / 1000;

function summary(labels: string, r: JudgeEvalReport) {
  return {
    labels,
    n: r.n,
    resolutionF1: round(r.resolution.f1),
    resolutionPrecision: round(r.resolution.precision),
    resolutionRecall: round(r.resolution.recall),
    tierSpearman: round(r.tierSpearman),
    hallucinationF1: round(r.hallucination.f1),
    hallucinationPrecision: round(r.hallucination.precision),
    hallucinationRecall: round(r.hallucination.recall),
    disagreements: r.disagreements.map(({ id, field, label, judged }) => ({ id, field, label, judged })),
    claimKinds: r.claimKinds,
  };
}

/** Which kind of claim was missed or wrongly flagged: a regression names its cause. */
function kindsTable(kinds: JudgeEvalReport['claimKinds']): string {
  if (!kinds.length) return '';
  return `\n\nper kind of claim (false claims the judge caught / missed; true claims it flagged):\n${table(
    ['claim kind', 'false', 'caught', 'missed', 'true', 'wrongly flagged'],
    kinds.map((k) => [k.kind, k.labelledFalse, k.caught, k.missed, k.labelledTrue, k.wronglyFlagged]),
    ['l', 'r', 'r', 'r', 'r', 'r'],
  )}`;
}

function printed(doc: ReturnType<typeof summary>): string {
  return (
    `${table(
      ['measure', 'value', 'precision', 'recall'],
      [
        ['resolution F1', doc.resolutionF1.toFixed(3), doc.resolutionPrecision.toFixed(3), doc.resolutionRecall.toFixed(3)],
        ['tier Spearman ρ', doc.tierSpearman.toFixed(3), '', ''],
        ['hallucination F1', doc.hallucinationF1.toFixed(3), doc.hallucinationPrecision.toFixed(3), doc.hallucinationRecall.toFixed(3)],
      ],
      ['l', 'r', 'r', 'r'],
    )}${kindsTable(doc.claimKinds)}\n\n${doc.n} labelled conversations, ${doc.disagreements.length} field disagreements` +
    (doc.disagreements.length
      ? `:\n${doc.disagreements.map((d) => `  ${d.id} ${d.field}: labelled ${String(d.label)}, judged ${String(d.judged)}`).join('\n')}`
      : '') +
    '\n'
  );
}

/** The tools and error codes a pack's labelled sets may name (`--domain`). */
function packVocabulary(nameOrDir: string): SetVocabulary {
  let pack;
  try {
    pack = loadPack(resolvePackDir(nameOrDir));
  } catch (e) {
    if (e instanceof PackError) throw new UsageError(`--domain ${nameOrDir}: ${e.message}`);
    throw e;
  }
  const goalTools = pack.tools.tools.filter((t) => t.goal).map((t) => t.name);
  const errorCodes = pack.tools.errorCodes.map((c) => c.code);
  if (!goalTools.length || !errorCodes.length) throw new UsageError(`--domain ${nameOrDir}: the pack has no goal tool or no error code`);
  return { goalTools: goalTools as [string, ...string[]], errorCodes: errorCodes as [string, ...string[]] };
}

export function registerJudgeEval(program: Command, globals: () => GlobalOptions): void {
  program
    .command('judge-eval')
    .description(
      'judge reliability against labelled conversations: resolution F1, tier Spearman, hallucination F1, and per kind of claim which were caught, missed or wrongly flagged',
    )
    // The default shown as the package's relative path: help (and docs/cli.md, generated from it) is the same wherever Sparring is installed.
    .addOption(new Option('--labels <file>', 'a labelled set (JSON, see assets/judge/README.md)').default(DEFAULT_LABELS, 'assets/judge/labelled.json'))
    .option('--all', 'every labelled set in assets/judge (labelled, heldout, labelled-3) instead of --labels', false)
    .option(
      '--domain <pack>',
      "read the set's transcripts in a domain pack's vocabulary (its goal tools and error codes: a pack name in domains/ or a folder), e.g. --domain travel --labels assets/judge/travel.json; the judge itself is still banking's",
    )
    .option(...JUDGE_OPTION)
    .action(async (opts: { labels: string; all: boolean; judge: string; domain?: string }) => {
      const g = globals();
      if (opts.domain !== undefined && opts.all) throw new UsageError('judge-eval: --all reads the banking sets; --domain goes with --labels');
      const vocabulary = opts.domain === undefined ? undefined : packVocabulary(opts.domain);
      const judge = resolveJudge(opts.judge, g);
      const files = opts.all ? ALL_LABELS : [opts.labels];
      const docs: ReturnType<typeof summary>[] = [];
      for (const file of files) {
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (e) {
          throw new UsageError(`--labels ${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
        const shown = path.relative(process.cwd(), file) || file;
        const set = parseJudgeSet(text, shown, vocabulary);
        docs.push(summary(opts.all ? shown : opts.labels, await evaluateJudgeWith(set, judge)));
      }
      if (g.json) {
        const out = opts.all ? { judge: judge.name, sets: docs } : { judge: judge.name, ...docs[0]! };
        process.stdout.write(JSON.stringify(out, null, 2) + '\n');
        return;
      }
      process.stdout.write(docs.map((d) => (opts.all ? `${d.labels} (judge ${judge.name})\n` : '') + printed(d)).join('\n'));
    });
}
