/**
 * Cross-play heat map data: one panel per arena scenario (and W_DA overall first), each a grid of
 * DA checkpoints (rows) × CA checkpoints (columns) holding the DA win rate. Which checkpoints to
 * play: the run's own, oldest first, at most MAX_SIDE a role (the newest), or the lab's when the
 * run has none. Pure, so it is tested without a DOM.
 */
import type { CheckpointInfo, CrossPlay } from '../../../../core/contract/contract';

/** Checkpoints per role the heat map plays by default (pairs grow as the square). */
export const MAX_SIDE = 6;

export interface HeatCell {
  da: string;
  ca: string;
  /** DA win rate; null when no episode was played (W_DA without CA-winnable scenarios). */
  rate: number | null;
  label: string;
}

export interface HeatPanel {
  id: string;
  title: string;
  fraud: boolean;
  cells: HeatCell[];
}

export interface HeatmapData {
  das: string[];
  cas: string[];
  panels: HeatPanel[];
}

export function heatmapData(x: CrossPlay): HeatmapData {
  const overall: HeatPanel = {
    id: 'W_DA',
    title: 'W_DA (CA-winnable)',
    fraud: false,
    cells: x.pairs.map((p) => ({ da: p.da, ca: p.ca, rate: p.wDa, label: p.wDa === null ? 'n/a' : `W_DA ${Math.round(p.wDa * 100)}%` })),
  };
  const scenarios = [...x.scenarios.filter((s) => !s.fraudReference), ...x.scenarios.filter((s) => s.fraudReference)];
  const panels = scenarios.map((s) => ({
    id: s.id,
    title: s.fraudReference ? `${s.id} ⚑` : s.id,
    fraud: s.fraudReference,
    cells: x.cells.filter((c) => c.scenarioId === s.id).map((c) => ({ da: c.da, ca: c.ca, rate: c.daWinRate, label: `DA won ${c.daWins}/${c.episodes}` })),
  }));
  return { das: x.das, cas: x.cas, panels: [overall, ...panels] };
}

/** Default rows and columns: the run's checkpoints per role (newest MAX_SIDE, oldest first), else the lab's. */
export function defaultSides(checkpoints: readonly CheckpointInfo[], runId: string | null): { das: string[]; cas: string[] } {
  const pick = (role: 'DA' | 'CA') => {
    const all = checkpoints.filter((c) => c.role === role);
    const own = all.filter((c) => c.runId === runId);
    const list = (own.length ? own : all).slice().sort((a, b) => a.generation - b.generation || a.createdAt.localeCompare(b.createdAt));
    return list.slice(-MAX_SIDE).map((c) => c.name);
  };
  return { das: pick('DA'), cas: pick('CA') };
}

/**
 * A panel title in at most two lines of `chars` characters, broken at a space, so a scenario's
 * title is read whole rather than cut; only a title longer than two lines ends in "…".
 */
export function wrapTitle(title: string, chars: number): string[] {
  if (title.length <= chars) return [title];
  const cut = title.lastIndexOf(' ', chars);
  const at = cut > chars / 3 ? cut : chars;
  const first = title.slice(0, at).trimEnd();
  const rest = title.slice(at).trimStart();
  if (rest.length <= chars) return [first, rest];
  const space = rest.lastIndexOf(' ', chars - 1);
  return [first, `${rest.slice(0, space > chars / 3 ? space : chars - 1).trimEnd()}…`];
}
