/**
 * The panel step of a study (`sparring study panel S`, also run at the end of `sparring study`):
 * each finished run's final DA against its panel (host/panel/panel-eval.ts) — the scripted CA,
 * the final CAs of the study's runs of *other* seeds (same arm and other arms; never one of the
 * DA's own run lineage), the lab's human customer episodes and LLM CAs — and against its training
 * counterpart (its run's final CA; CA0 for a fixed-opponent run), for the mismatch gap.
 *
 * It needs every run of the study settled (the panel of seed 1 holds seed 2's final CA).
 * Resumable: an (arm, seed) whose figures are stored (study_evaluations 'panel') is skipped, and
 * within one every counterpart already evaluated is reused from panel_evaluations, so a killed
 * step continues where it stopped and nothing is computed twice.
 */
import { sparringConfigOf } from '../../core/coevolution/run-config';
import { studyPanelFigures } from '../../core/coevolution/study-summary';
import type { StudyPanelFigures } from '../../core/coevolution/study-summary';
import type { SessionSettings } from '../../models/session';
import { createRunReader } from '../coevolution/run-reader';
import { evaluatePanel, PanelMemo } from '../panel/panel-eval';
import type { PanelCounterpart } from '../../core/arena/panel';
import { labDomain } from '../store/scenario-store';
import { openSqliteStore } from '../store/sqlite-store';
import { studyStore } from './study-store';

export interface StudyPanelOptions {
  dbPath: string;
  studyId: string;
  session?: SessionSettings;
  onProgress?: (p: { arm: string; seed: number; label: string; done: number; total: number }) => void;
  /** An (arm, seed) settled: evaluated now, already stored, skipped (its run did not finish), or failed. */
  onEntry?: (e: { arm: string; seed: number; da: string | null; how: 'computed' | 'stored' | 'skipped' | 'failed'; detail: string }) => void;
  onCounterpart?: (e: { arm: string; seed: number; counterpart: PanelCounterpart; how: 'computed' | 'reused' | 'failed'; detail: string }) => void;
}

export class StudyPanelError extends Error {
  override name = 'StudyPanelError';
}

/** Episodes per held-out scenario and run against each panel counterpart (a study's panel, and `eval --panel` by default). */
export const PANEL_EPISODES_PER_SCENARIO = 1;

/**
 * The protocol of a study's panel: its base config's held-out runs, seeds 1..runs for every DA (so
 * DAs are paired on the same episodes), one episode per held-out scenario and run. The panel plays
 * every DA against each final CA of the other seeds (about 55 counterparts in a 10-seed, 7-arm
 * study: 1,320 episodes a DA at 24 a counterpart), so it keeps one episode per scenario where the
 * run's own evaluation plays more (`eval.episodesPerScenario`); it averages over counterparts instead.
 */
export function studyPanelProtocol(base: { eval: { runs: number } }) {
  return { seeds: Array.from({ length: base.eval.runs }, (_, i) => i + 1), episodesPerScenario: PANEL_EPISODES_PER_SCENARIO };
}

export async function runStudyPanel(o: StudyPanelOptions): Promise<{ computed: number; stored: number; failed: number }> {
  const store = openSqliteStore(o.dbPath);
  const studies = studyStore(store.db);
  const reader = createRunReader(store.db, o.dbPath, () => undefined);
  const study = studies.get(o.studyId);
  const entries = studies.entries(study.id);
  const unsettled = entries.filter((e) => e.status !== 'finished' && e.status !== 'failed');
  if (unsettled.length) {
    store.close();
    throw new StudyPanelError(
      `study ${study.id}: ${unsettled.map((e) => `${e.arm}/${e.seed}`).join(', ')} not settled yet; the panel holds the final CAs of every other seed, so it runs once all runs have — \`sparring study --resume ${study.id}\` first`,
    );
  }
  const domain = labDomain(store.db);
  const finished = entries.filter((e) => e.status === 'finished');
  const finalDa = new Map(finished.map((e) => [`${e.arm}/${e.seed}`, reader.get(e.runId).matchSummaries.at(-1)?.da ?? null]));
  store.close();
  const protocol = studyPanelProtocol(study.base);
  const counts = { computed: 0, stored: 0, failed: 0 };
  // Lineages, CA models and the figures of pairs with equal weights, shared by every DA of the step.
  const memo = new PanelMemo();
  try {
    for (const e of entries) {
      const da = finalDa.get(`${e.arm}/${e.seed}`) ?? null;
      if (e.status !== 'finished' || da === null) {
        o.onEntry?.({
          arm: e.arm,
          seed: e.seed,
          da,
          how: 'skipped',
          detail: e.status !== 'finished' ? `its run ${e.runId} ${e.status}` : `its run ${e.runId} played no match`,
        });
        continue;
      }
      const lab = openSqliteStore(o.dbPath);
      const have = studyStore(lab.db).evaluation<StudyPanelFigures>(study.id, e.arm, e.seed, 'panel');
      lab.close();
      if (have) {
        counts.stored++;
        o.onEntry?.({ arm: e.arm, seed: e.seed, da, how: 'stored', detail: '' });
        continue;
      }
      try {
        const r = await evaluatePanel({
          db: o.dbPath,
          domain,
          da,
          panel: 'auto',
          protocol,
          config: sparringConfigOf(study.base),
          runs: finished.filter((x) => x.seed !== e.seed).map((x) => x.runId),
          memo,
          ...(o.session ? { session: o.session } : {}),
          onProgress: (label, done, total) => o.onProgress?.({ arm: e.arm, seed: e.seed, label, done, total }),
          onCounterpart: (counterpart, how, detail) => o.onCounterpart?.({ arm: e.arm, seed: e.seed, counterpart, how, detail }),
        });
        const w = openSqliteStore(o.dbPath);
        try {
          studyStore(w.db).saveEvaluation(study.id, e.arm, e.seed, 'panel', studyPanelFigures(r.da, r.summary));
        } finally {
          w.close();
        }
        counts.computed++;
        o.onEntry?.({
          arm: e.arm,
          seed: e.seed,
          da,
          how: 'computed',
          detail: `${r.summary.rows.length} counterparts (${r.computed} evaluated, ${r.reused} reused)${r.failed.length ? `; not evaluated: ${r.failed.map((f) => `${f.counterpart.label} (${f.error})`).join(', ')}` : ''}`,
        });
      } catch (err) {
        counts.failed++;
        o.onEntry?.({ arm: e.arm, seed: e.seed, da, how: 'failed', detail: err instanceof Error ? err.message : String(err) });
      }
    }
  } finally {
    await memo.dispose();
  }
  return counts;
}
