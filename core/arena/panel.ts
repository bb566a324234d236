/**
 * Counterpart-shift evaluation (IB-RL, seed 003): a dialogue policy trained against a fixed
 * counterpart learns that counterpart's quirks and degrades under counterpart shift — the
 * static-counterpart mismatch. IB-RL's review asks for evaluation against counterparts that share
 * no parameters, prompts or reward logic with training. This is that evaluation for a DA: the
 * held-out evaluation (core/arena/evaluate.ts) against a *panel* of counterparts — the scripted
 * CA, the final CAs of other runs and seeds (never one of the DA's own run lineage), human-played
 * customer episodes (Play) replayed to the DA, and the lab's LLM CAs — per counterpart (rates
 * with Wilson intervals over the episodes) and averaged (mean over counterparts with its 95%
 * Student-t interval). The mismatch gap is the DA's score against its training counterpart minus
 * the panel average, with the t interval of the per-counterpart differences.
 *
 * Pure: the host reads the lab, resolves policies and plays the episodes.
 */
import type { CaPolicy, CheckpointRef } from '../agents/policy';
import type { Rng } from '../random';
import type { EpisodeRecord } from '../store/port';
import { meanInterval, wilsonInterval } from '../stats/intervals';
import type { MeanInterval } from '../stats/intervals';
import { parseDaOutput } from '../wire';
import type { CaObservation } from '../world/environment';
import type { HeldoutMetrics } from './evaluate';

/** Where a counterpart comes from. 'training' is the DA's own training counterpart (the gap's minuend). */
export type CounterpartKind = 'scripted' | 'run-ca' | 'human' | 'llm';

export interface PanelCounterpart {
  /** Stable key of the counterpart: 'scripted', 'ca:CA7', 'llm:NAME', 'human:<episode ids>'. */
  key: string;
  kind: CounterpartKind;
  /** What tables print: 'scripted', 'CA7 (R2)', 'human (3 episodes)', 'llm NAME'. */
  label: string;
  /** The policy SPEC that resolves it (a CA checkpoint name, 'scripted', an endpoint name); human: ''. */
  spec: string;
  /** The run a CA checkpoint came from, else null. */
  runId: string | null;
  /** Human counterparts: the episodes replayed. */
  episodeIds?: string[];
}

/** What the lab offers as panel members (host/panel/panel-eval.ts reads it). */
export interface PanelCandidates {
  /** The final CA of each finished run, with the runs of its whole lineage (its own, its ancestors'). */
  runCas: { name: string; runId: string | null; lineageRuns: string[] }[];
  /** Human-played customer episodes (seat CA). */
  humanEpisodes: string[];
  /** LLM endpoints saved in the lab. */
  llmEndpoints: string[];
}

/** What the DA's training shared: its lineage's runs, the human episodes its weights saw. */
export interface DaTraining {
  /** The runs of the DA checkpoint and its ancestors (empty for one trained outside a run, e.g. `sft`). */
  lineageRuns: string[];
  /** Human-played episodes in the DA's training data (checkpoint store `humanEpisodesSeen`). */
  humanEpisodesSeen: string[];
}

export class PanelError extends Error {
  override name = 'PanelError';
}

/** A CA that shares the DA's run lineage: trained in one of its runs, or descended from a CA that was. */
export function sharesLineage(ca: { lineageRuns: readonly string[] }, da: DaTraining): boolean {
  return ca.lineageRuns.some((r) => da.lineageRuns.includes(r));
}

function humanCounterpart(ids: readonly string[]): PanelCounterpart {
  const sorted = [...ids].sort();
  return {
    key: `human:${sorted.join(',')}`,
    kind: 'human',
    label: `human (${sorted.length} episode${sorted.length === 1 ? '' : 's'})`,
    spec: '',
    runId: null,
    episodeIds: sorted,
  };
}

function runCaCounterpart(c: PanelCandidates['runCas'][number]): PanelCounterpart {
  return { key: `ca:${c.name}`, kind: 'run-ca', label: c.runId ? `${c.name} (${c.runId})` : c.name, spec: c.name, runId: c.runId };
}

const SCRIPTED: PanelCounterpart = { key: 'scripted', kind: 'scripted', label: 'scripted', spec: 'scripted', runId: null };

/**
 * The panel of a DA. `auto`: the scripted CA, every other run's final CA that shares no run with
 * the DA's lineage, the human customer episodes its weights never saw (one counterpart), and every
 * LLM endpoint. A list of SPECs names members instead ('scripted', 'human', a CA checkpoint, an
 * endpoint); one of the DA's own lineage or an unknown name is an error that says which.
 */
export function selectPanel(c: PanelCandidates, da: DaTraining, ask: 'auto' | readonly string[]): PanelCounterpart[] {
  const humans = c.humanEpisodes.filter((id) => !da.humanEpisodesSeen.includes(id));
  if (ask === 'auto') {
    return [
      SCRIPTED,
      ...c.runCas.filter((x) => !sharesLineage(x, da)).map(runCaCounterpart),
      ...(humans.length ? [humanCounterpart(humans)] : []),
      ...c.llmEndpoints.map((name): PanelCounterpart => ({ key: `llm:${name}`, kind: 'llm', label: `llm ${name}`, spec: name, runId: null })),
    ];
  }
  const out: PanelCounterpart[] = [];
  for (const spec of ask) {
    let m: PanelCounterpart;
    if (spec === 'scripted') m = SCRIPTED;
    else if (spec === 'human') {
      if (!humans.length)
        throw new PanelError(`--panel human: the lab has no human-played customer episodes${c.humanEpisodes.length ? ' the DA did not train on' : ''}`);
      m = humanCounterpart(humans);
    } else if (c.llmEndpoints.includes(spec)) m = { key: `llm:${spec}`, kind: 'llm', label: `llm ${spec}`, spec, runId: null };
    else {
      const ca = c.runCas.find((x) => x.name === spec);
      if (!ca) {
        throw new PanelError(
          `--panel ${spec}: not a panel member; give scripted, human, an LLM endpoint${c.llmEndpoints.length ? ` (${c.llmEndpoints.join(', ')})` : ''} ` +
            `or the final CA of a finished run (${c.runCas.map((x) => x.name).join(', ') || 'none in this lab'})`,
        );
      }
      if (sharesLineage(ca, da))
        throw new PanelError(
          `--panel ${spec}: shares the DA's run lineage (${ca.lineageRuns.filter((r) => da.lineageRuns.includes(r)).join(', ')}), so it is no counterpart shift`,
        );
      m = runCaCounterpart(ca);
    }
    if (!out.some((x) => x.key === m.key)) out.push(m);
  }
  return out;
}

// ----------------------------------------------------------------------- human episodes

/** The spoken dialogue of a stored episode, as the environment shows it to the customer. */
function spokenDialogue(turns: EpisodeRecord['turns']): { role: 'customer' | 'agent'; text: string }[] {
  const out: { role: 'customer' | 'agent'; text: string }[] = [];
  for (const t of turns) {
    if (t.role === 'customer') out.push({ role: 'customer', text: t.text });
    else if (t.actionType !== null && t.actionType !== 'tool_call') {
      const p = parseDaOutput(t.text);
      if (p.ok && p.action.content.trim() !== '') out.push({ role: 'agent', text: p.action.content });
    }
  }
  return out;
}

/**
 * A human customer's stored episode played again to another DA: the human's k-th utterance is
 * replayed as long as the dialogue so far is the one the human answered (the DA said what the
 * DA of the recording said). Once the DA says something else, the human's later words no longer
 * answer it, so the `fallback` CA (the scripted one) speaks for the rest of the episode.
 * `replayed` counts the human utterances used: 1 means the DA was evaluated on the human's opening.
 */
export class ReplayCa implements CaPolicy {
  readonly name: string;
  readonly checkpoint?: CheckpointRef;
  private readonly recorded: { role: 'customer' | 'agent'; text: string }[];
  private readonly utterances: string[];
  /** Position of the human's k-th utterance in `recorded`. */
  private readonly at: number[];
  replayed = 0;
  diverged = false;

  constructor(
    episode: Pick<EpisodeRecord, 'id' | 'turns'>,
    private readonly fallback: CaPolicy,
  ) {
    this.name = `human:${episode.id}`;
    this.recorded = spokenDialogue(episode.turns);
    this.utterances = this.recorded.filter((d) => d.role === 'customer').map((d) => d.text);
    this.at = this.recorded.flatMap((d, i) => (d.role === 'customer' ? [i] : []));
  }

  /** The human's customer utterances in the recording. */
  get humanTurns(): number {
    return this.utterances.length;
  }

  speak(obs: CaObservation, rng: Rng, ctx?: Parameters<CaPolicy['speak']>[2]): string | Promise<string> {
    const k = obs.dialogue.filter((d) => d.role === 'customer').length;
    if (!this.diverged && k < this.utterances.length) {
      // The recording up to (not including) the human's k-th utterance.
      const prefix = this.recorded.slice(0, this.at[k]);
      const same = prefix.length === obs.dialogue.length && prefix.every((d, i) => d.role === obs.dialogue[i]!.role && d.text === obs.dialogue[i]!.text);
      if (same) {
        this.replayed++;
        return this.utterances[k]!;
      }
    }
    this.diverged = true;
    return this.fallback.speak(obs, rng, ctx);
  }
}

/** How far a human counterpart's episodes were replayed. */
export interface ReplayStats {
  episodes: number;
  /** Episodes in which only the opening was the human's (the DA diverged after its first reply). */
  openingOnly: number;
  /** Human utterances replayed, of those recorded. */
  replayedTurns: number;
  humanTurns: number;
}

// ----------------------------------------------------------------------------- figures

export const PANEL_METRICS = [
  ['routing', 'routingAccuracy', 'routing'],
  ['strictPass', 'strictPass', 'strict PASS'],
  ['meanReward', 'meanReward', 'mean reward'],
] as const;
export type PanelMetric = (typeof PANEL_METRICS)[number][0];

/** A value measured on `n` episodes; rates carry their 95% Wilson interval, mean reward none. */
export interface PanelCell {
  value: number;
  ci: [number, number] | null;
  n: number;
}

export interface PanelRow {
  counterpart: PanelCounterpart;
  episodes: number;
  cells: Record<PanelMetric, PanelCell>;
  replay?: ReplayStats;
}

export interface PanelSummary {
  rows: PanelRow[];
  /** Mean over counterparts with the 95% t interval (n = counterparts). */
  average: Record<PanelMetric, MeanInterval>;
  /** The DA against its training counterpart, under the same protocol; null when it has none. */
  training: PanelRow | null;
  /**
   * training − panel average: the static-counterpart mismatch. Its interval is the t interval of
   * the per-counterpart differences training − counterpart (the training score taken as fixed);
   * null without a training counterpart.
   */
  gap: Record<PanelMetric, MeanInterval> | null;
}

export interface PanelMeasurement {
  counterpart: PanelCounterpart;
  heldout: Pick<HeldoutMetrics, 'episodes' | 'routingAccuracy' | 'strictPass' | 'meanReward'>;
  replay?: ReplayStats;
}

export function panelRow(m: PanelMeasurement): PanelRow {
  const n = m.heldout.episodes;
  const rate = (v: number): PanelCell => ({ value: v, ci: wilsonInterval(Math.round(v * n), n), n });
  return {
    counterpart: m.counterpart,
    episodes: n,
    cells: { routing: rate(m.heldout.routingAccuracy), strictPass: rate(m.heldout.strictPass), meanReward: { value: m.heldout.meanReward, ci: null, n } },
    ...(m.replay ? { replay: m.replay } : {}),
  };
}

/** The per-counterpart rows, their average with intervals, and the mismatch gap. */
export function panelSummary(panel: readonly PanelMeasurement[], training: PanelMeasurement | null): PanelSummary {
  const rows = panel.filter((m) => m.heldout.episodes > 0).map(panelRow);
  const t = training && training.heldout.episodes > 0 ? panelRow(training) : null;
  const metrics = PANEL_METRICS.map(([k]) => k);
  // Rates cannot leave [0, 1] (their gaps [−1, 1]): intervals are cut to that (meanInterval's bounds).
  const rate = (k: PanelMetric) => k !== 'meanReward';
  const average = Object.fromEntries(
    metrics.map((k) => [
      k,
      meanInterval(
        rows.map((r) => r.cells[k].value),
        0.95,
        rate(k) ? [0, 1] : undefined,
      ),
    ]),
  ) as PanelSummary['average'];
  const gap = t
    ? (Object.fromEntries(
        metrics.map((k) => [
          k,
          meanInterval(
            rows.map((r) => t.cells[k].value - r.cells[k].value),
            0.95,
            rate(k) ? [-1, 1] : undefined,
          ),
        ]),
      ) as PanelSummary['gap'])
    : null;
  return { rows, average, training: t, gap };
}
