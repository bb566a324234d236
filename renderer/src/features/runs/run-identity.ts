/**
 * Which run is this? Checkpoint names are lab-wide (DA7 may be run R3's third DA), so every screen
 * that picks or shows a run or a checkpoint says, through these words and the RunIdentity
 * component, the run it belongs to, its study arm, seed, preset, what its config changes from
 * that preset (computed by the host: RunSummary.configChange) and the note a person wrote. One
 * formatter for every screen; the CLI's `sparring runs list` prints the same facts.
 */
import type { CheckpointInfo, RunSummary } from '../../../../core/contract/contract';

/** What the identity of a run or checkpoint is read from: the lab's runs and checkpoints as the engine lists them now. */
export interface LabIndex {
  runs: readonly RunSummary[];
  checkpoints: readonly CheckpointInfo[];
}

/** The longest note shown inside a picker's option before it is cut with an ellipsis. */
const OPTION_NOTE_CHARS = 40;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** "R3 · arm no-ca-training of S1 · seed 2 · quick": the run, its study arm, seed and preset. */
export function runFacts(run: RunSummary): string {
  return [run.id, run.study ? `arm ${run.study.arm} of ${run.study.id}` : null, `seed ${run.seed}`, run.preset || 'own config']
    .filter((x): x is string => x !== null)
    .join(' · ');
}

/**
 * What its config changes from its preset, shortened: the first `max` lines and how many more;
 * null when it is the preset as it is (or the host did not say). A run without a preset says so.
 */
export function runChangeText(run: Pick<RunSummary, 'configChange' | 'preset'>, max = 1): string | null {
  const c = run.configChange;
  if (c === undefined || (c !== null && c.length === 0)) return null;
  if (c === null) return 'a config of its own';
  const shown = c.slice(0, max).join('; ');
  return c.length > max ? `${shown} (+${c.length - max} more)` : shown;
}

/** The change from the preset as the identity line says it: "the quick preset as it is", "changed from quick: …". */
export function runChangeSentence(run: Pick<RunSummary, 'configChange' | 'preset'>, max = 2): string | null {
  const c = run.configChange;
  if (c === undefined) return null;
  if (c === null) return 'a config of its own (no preset)';
  if (c.length === 0) return `the ${run.preset} preset as it is`;
  return `changed from ${run.preset}: ${runChangeText(run, max)}`;
}

/** A run as one line for a picker's option: its facts, its change from the preset and its note, cut short. */
export function runOptionLabel(run: RunSummary): string {
  const change = runChangeText(run);
  return [runFacts(run), change, run.note ? `“${cut(run.note, OPTION_NOTE_CHARS)}”` : null, run.status === 'finished' ? null : run.status]
    .filter((x): x is string => x !== null)
    .join(' · ');
}

/** The checkpoint a policy SPEC names now: its own name, or `latest` (the role's newest, as the engine resolves it). */
export function checkpointOf(spec: string, role: 'DA' | 'CA', lab: LabIndex): CheckpointInfo | null {
  if (spec === 'latest') return lab.checkpoints.filter((c) => c.role === role).at(-1) ?? null;
  return lab.checkpoints.find((c) => c.name === spec) ?? null;
}

/** The run a checkpoint was trained in (null: imported, registered by hand, or not in the list yet). */
export function runOf(checkpoint: CheckpointInfo | null, lab: LabIndex): RunSummary | null {
  if (!checkpoint?.runId) return null;
  return lab.runs.find((r) => r.id === checkpoint.runId) ?? null;
}

/**
 * A policy SPEC as a picker's option: "DA7 — R3 · arm no-ca-training of S1 · seed 2 · quick · …",
 * "latest → DA7 — R3 · …"; a checkpoint outside any run "DA9 — not from a run"; other SPECs
 * (scripted, sft, saved models) as they are.
 */
export function policyOptionLabel(spec: string, role: 'DA' | 'CA', lab: LabIndex): string {
  const c = checkpointOf(spec, role, lab);
  if (!c) return spec;
  const name = c.name === spec ? spec : `${spec} → ${c.name}`;
  const run = runOf(c, lab);
  if (run) return `${name} — ${runOptionLabel(run)}`;
  return c.runId ? `${name} — run ${c.runId}` : `${name} — not from a run (${c.source})`;
}
