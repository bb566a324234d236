/** `sparring judge-eval`: the builtin judge against labelled conversations (RL-ADA Table 1). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { evaluateJudge, parseJudgeSet } from '../../../core/judge/judge-eval';
import { ASSETS_DIR } from '../../domain-files';
import { UsageError } from '../options';
import { table } from '../../format/table';
import type { GlobalOptions } from '../main';

export const DEFAULT_LABELS = path.join(ASSETS_DIR, 'judge', 'labelled.json');

export function registerJudgeEval(program: Command, globals: () => GlobalOptions): void {
  program
    .command('judge-eval')
    .description('judge reliability against labelled conversations: resolution F1, tier Spearman, hallucination F1')
    .option('--labels <file>', 'a labelled set (JSON, see assets/judge/README.md)', DEFAULT_LABELS)
    .action((opts: { labels: string }) => {
      const g = globals();
      let text: string;
      try {
        text = readFileSync(opts.labels, 'utf8');
      } catch (e) {
        throw new UsageError(`--labels ${opts.labels}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      const set = parseJudgeSet(text, path.relative(process.cwd(), opts.labels) || opts.labels);
      const r = evaluateJudge(set);
      const round = (x: number) => Math.round(x * 1000) / 1000;
      const doc = {
        labels: opts.labels,
        n: r.n,
        resolutionF1: round(r.resolution.f1),
        resolutionPrecision: round(r.resolution.precision),
        resolutionRecall: round(r.resolution.recall),
        tierSpearman: round(r.tierSpearman),
        hallucinationF1: round(r.hallucination.f1),
        hallucinationPrecision: round(r.hallucination.precision),
        hallucinationRecall: round(r.hallucination.recall),
        disagreements: r.disagreements.map(({ id, field, label, judged }) => ({ id, field, label, judged })),
      };
      if (g.json) {
        process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
        return;
      }
      process.stdout.write(
        `${table(
          ['measure', 'value', 'precision', 'recall'],
          [
            ['resolution F1', doc.resolutionF1.toFixed(3), doc.resolutionPrecision.toFixed(3), doc.resolutionRecall.toFixed(3)],
            ['tier Spearman ρ', doc.tierSpearman.toFixed(3), '', ''],
            ['hallucination F1', doc.hallucinationF1.toFixed(3), doc.hallucinationPrecision.toFixed(3), doc.hallucinationRecall.toFixed(3)],
          ],
          ['l', 'r', 'r', 'r'],
        )}\n\n${r.n} labelled conversations, ${r.disagreements.length} field disagreements` +
          (r.disagreements.length ? `:\n${r.disagreements.map((d) => `  ${d.id} ${d.field}: labelled ${d.label}, judged ${d.judged}`).join('\n')}` : '') +
          '\n',
      );
    });
}
