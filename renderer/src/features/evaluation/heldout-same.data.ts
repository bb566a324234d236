/**
 * Why two columns or two tables of Table 4 can be equal (issue 52): the held-out evaluation plays
 * its own episodes against the run's CA and against the scripted CA, but with one episode per
 * held-out scenario (the quick preset's 12) and rewards that take few values (9.5 for a clean
 * resolution), a DA whose outcome in a scenario does not depend on the customer's wording scores
 * exactly alike against both; a gym that barely moved a DA does the same across checkpoints. A
 * note says so, scenario by scenario, instead of leaving identical figures unexplained.
 */
import type { HeldoutReport, HeldoutScenarioRow, HeldoutTable } from '../../../../core/contract/contract';

type Cell = HeldoutScenarioRow['cells'][number];

const same = (a: Cell, b: Cell) =>
  !!a &&
  !!b &&
  a.episodes === b.episodes &&
  a.routingAccuracy === b.routingAccuracy &&
  a.strictPass === b.strictPass &&
  Math.abs(a.meanReward - b.meanReward) < 1e-9;

/** Episodes per scenario as words: "1 episode each", "8 episodes each". */
function perScenario(t: HeldoutTable, col: number): string {
  const n = t.scenarios[0]?.cells[col]?.episodes ?? 0;
  return `${n} episode${n === 1 ? '' : 's'} each`;
}

/** Whether checkpoint column `col` has the same result in every scenario of `a` and `b` (matched by scenario id). */
function sameEverywhere(a: HeldoutTable, colA: number, b: HeldoutTable, colB: number): boolean {
  const byId = new Map(b.scenarios.map((r) => [r.scenarioId, r]));
  return a.scenarios.length > 0 && a.scenarios.every((r) => same(r.cells[colA] ?? null, byId.get(r.scenarioId)?.cells[colB] ?? null));
}

/**
 * The notes for a run's held-out report: checkpoints whose results against the run's CA and the
 * scripted CA are the same in every scenario, and checkpoints with the same results as the one
 * before them (against the run's CA) in every scenario. Empty when nothing is equal.
 */
export function sameOutcomeNotes(report: HeldoutReport): string[] {
  const notes: string[] = [];
  const run = report.vsRun;
  const ref = report.vsReference;
  if (ref) {
    const alike = run.checkpoints.filter((c) => {
      const j = ref.checkpoints.indexOf(c);
      return j >= 0 && sameEverywhere(run, run.checkpoints.indexOf(c), ref, j);
    });
    if (alike.length)
      notes.push(
        `${alike.join(', ')}: the same result against ${run.opponent} and the scripted CA in each of the ${run.scenarios.length} held-out scenarios (${perScenario(run, 0)}). ` +
          'The two customers are different policies and say different things; this DA routed and resolved each scenario alike whichever it met. More episodes per scenario (`sparring eval --episodes 8`) show where its outcome depends on the wording.',
      );
  }
  const unchanged = run.checkpoints.flatMap((c, i) => (i > 0 && sameEverywhere(run, i, run, i - 1) ? [`${c} = ${run.checkpoints[i - 1]}`] : []));
  if (unchanged.length)
    notes.push(
      `${unchanged.join(', ')}: the same result in each held-out scenario (${perScenario(run, 0)}), so every change reads ±0: the gym between them did not change what the DA does on these episodes (its greedy actions), though its weights may differ.`,
    );
  return notes;
}
