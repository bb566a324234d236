/**
 * Which run is this? What the lab knows about a run beyond its id: the study and arm it belongs
 * to, what its config changes from its preset (core/coevolution/run-identity.ts) and the note a
 * person wrote (migration 30). The run readers add it to every RunSummary, so the CLI and every
 * screen say the same; `sparring runs note` and the engine's `runs/note` write the note.
 */
import type { Database } from 'better-sqlite3';
import { PRESETS } from '../../core/presets';
import { runConfigChange } from '../../core/coevolution/run-identity';
import type { PresetInfo, RunSummary } from '../../core/contract/contract';
import { checkText, TEXT_BOUNDS } from '../store/text-bounds';

export type RunIdentity = Required<Pick<RunSummary, 'study' | 'configChange' | 'note'>>;

/** The identity of a stored run from its row (preset, config, note) and its study entry. */
export function runIdentityReader(db: Database): (r: { id: string; preset: string; config_json: string; note: string | null }) => RunIdentity {
  const studyOf = db.prepare<[string], { study_id: string; arm: string }>('SELECT study_id, arm FROM study_runs WHERE run_id = ?');
  return (r) => {
    const s = studyOf.get(r.id);
    const preset = PRESETS[r.preset as keyof typeof PRESETS] as (typeof PRESETS)[keyof typeof PRESETS] | undefined;
    return {
      study: s ? { id: s.study_id, arm: s.arm } : null,
      configChange: runConfigChange(preset?.config, r.config_json),
      note: r.note ?? null,
    };
  };
}

/**
 * Write a run's note (trimmed; an empty one clears it). Refuses an unknown run and a note over
 * TEXT_BOUNDS.note by name; returns what is stored now.
 */
export function setRunNote(db: Database, runId: string, note: string): string | null {
  const text = note.trim();
  checkText('note', text, TEXT_BOUNDS.note);
  const stored = text === '' ? null : text;
  const changed = db.prepare('UPDATE runs SET note = ? WHERE id = ?').run(stored, runId).changes;
  if (changed === 0) throw new Error(`no run "${runId}" in this lab`);
  return stored;
}

/** The median of a non-empty list. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * How long a preset's runs took in this lab: the median wall time (created → last stored) of its
 * finished runs that kept the preset as it is and ran on their own (a study's runs share the
 * machine with its other workers); null where none has.
 */
export function measuredPresetTimes(db: Database): Map<string, { seconds: number; runs: number }> {
  const rows = db
    .prepare<[], { preset: string; created_at: string; updated_at: string; config_json: string }>(
      `SELECT preset, created_at, updated_at, config_json FROM runs
        WHERE status = 'finished' AND preset != '' AND id NOT IN (SELECT run_id FROM study_runs WHERE run_id IS NOT NULL)`,
    )
    .all();
  const byPreset = new Map<string, number[]>();
  for (const r of rows) {
    const preset = PRESETS[r.preset as keyof typeof PRESETS] as (typeof PRESETS)[keyof typeof PRESETS] | undefined;
    if (runConfigChange(preset?.config, r.config_json)?.length !== 0) continue;
    const seconds = (Date.parse(r.updated_at) - Date.parse(r.created_at)) / 1000;
    if (!Number.isFinite(seconds) || seconds < 0) continue;
    byPreset.set(r.preset, [...(byPreset.get(r.preset) ?? []), seconds]);
  }
  return new Map([...byPreset].map(([p, xs]) => [p, { seconds: median(xs), runs: xs.length }]));
}

/** A preset's budget in words: "at most 3 matches of 3 episodes per scenario". */
export function presetBudget(name: string): string | undefined {
  const p = PRESETS[name as keyof typeof PRESETS] as (typeof PRESETS)[keyof typeof PRESETS] | undefined;
  if (!p) return undefined;
  const { stopping, arena } = p.config;
  return `at most ${stopping.nMax} matches of ${arena.episodesPerScenario} episodes per scenario`;
}

/** The presets with what this lab measured of each (PresetInfo.measured) and their budgets. */
export function presetsWithTimes(db: Database, presets: PresetInfo[]): PresetInfo[] {
  const times = measuredPresetTimes(db);
  return presets.map((p) => ({ ...p, measured: times.get(p.name) ?? null, budget: presetBudget(p.name) }));
}
