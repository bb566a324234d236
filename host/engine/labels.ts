/**
 * The engine's labelling requests (issue 6): queues of the CA's openings or of whole episodes,
 * sampled per match; items shown blind (match, checkpoints and the judge's verdict hidden until
 * the annotator has labelled the item); the tactic and judge-audit reports; exports.
 */
import type { Handlers } from '../../core/contract/contract';
import { DEFAULT_CONFIG } from '../../core/config';
import type { StoppingConfig } from '../../core/config';
import { auditReport, tacticReport } from '../../core/labels/reports';
import type { AuditItemInput, TacticItemInput } from '../../core/labels/reports';
import { sampleQueue } from '../../core/labels/sample';
import { DEFAULT_AUDIT_PER_MATCH, DEFAULT_TACTIC_LABELS, DEFAULT_TACTIC_PER_MATCH } from '../../core/labels/types';
import type { AuditValue, LabelExportRow, LabelItemView } from '../../core/labels/types';
import type { EpisodeSummary, MatchRecord, RunStore } from '../../core/store/port';
import type { LabelStore } from '../store/label-store';
import { csvCell } from '../../core/export/data-table';
import type { Judge } from '../../core/judge/port';
import { transcriptOfEpisode } from '../../core/validators/validators';

type LabelHandlers = Pick<Handlers, Extract<keyof Handlers, `labels/${string}`>>;

const PAGE = 500;

function allEpisodes(store: RunStore, matchId: string): EpisodeSummary[] {
  const out: EpisodeSummary[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = store.listEpisodes({ matchId, offset, limit: PAGE });
    out.push(...page);
    if (page.length < PAGE) return out;
  }
}

/** The stopping rule the matches were played under (their stored config), else the default. */
function stoppingOf(m: MatchRecord | undefined): StoppingConfig {
  try {
    const cfg = JSON.parse(m?.configJson ?? '{}') as { stopping?: StoppingConfig };
    return cfg.stopping ? { ...DEFAULT_CONFIG.stopping, ...cfg.stopping } : DEFAULT_CONFIG.stopping;
  } catch {
    return DEFAULT_CONFIG.stopping;
  }
}

export const LABEL_CSV_COLUMNS: readonly (keyof LabelExportRow)[] = [
  'queue_id',
  'kind',
  'item_id',
  'pos',
  'match_id',
  'episode_id',
  'turn_idx',
  'text',
  'annotator',
  'skipped',
  'tactic',
  'resolved',
  'tier',
  'hallucination',
  'note',
  'ms_spent',
  'revision',
  'created_at',
  'updated_at',
];

/** Every label (of one queue, or of the lab) as export rows, by queue, item and annotator. */
export function labelExportRows(store: RunStore, labels: LabelStore, queueId?: string): LabelExportRow[] {
  const queues = queueId === undefined ? labels.listQueues() : [labels.getQueue(queueId)];
  return queues.flatMap((q) => {
    const items = new Map(labels.items(q.id).map((i) => [i.pos, i]));
    return labels.labels(q.id).map((l): LabelExportRow => {
      const item = items.get(l.pos)!;
      const episode = store.getEpisode(item.episodeId);
      const audit = q.kind === 'audit' && l.value !== null ? (l.value as AuditValue) : null;
      return {
        queue_id: q.id,
        kind: q.kind,
        item_id: `${q.id}/${l.pos}`,
        pos: l.pos,
        match_id: episode?.matchId ?? '',
        episode_id: item.episodeId,
        turn_idx: item.turnIdx,
        text: q.kind === 'tactic' && item.turnIdx !== null ? (episode?.turns.find((t) => t.index === item.turnIdx)?.text ?? null) : null,
        annotator: l.annotator,
        skipped: l.value === null,
        tactic: q.kind === 'tactic' && typeof l.value === 'string' ? l.value : null,
        resolved: audit?.resolved ?? null,
        tier: audit?.tier ?? null,
        hallucination: audit?.hallucination ?? null,
        note: l.note,
        ms_spent: l.msSpent,
        revision: l.revision,
        created_at: l.createdAt,
        updated_at: l.updatedAt,
      };
    });
  });
}

export function formatLabelExport(rows: readonly LabelExportRow[], format: 'json' | 'csv'): string {
  if (format === 'json') return `${JSON.stringify(rows, null, 2)}\n`;
  const lines = [LABEL_CSV_COLUMNS.join(','), ...rows.map((r) => LABEL_CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * `resolveJudge` turns a judge SPEC into a judge for the audit report's comparison with the
 * people (absent: only the stored verdicts can be compared).
 */
export function labelHandlers(store: RunStore, labels: LabelStore, resolveJudge?: (spec: string) => Judge): LabelHandlers {
  const episode = (id: string) => {
    const e = store.getEpisode(id);
    if (!e) throw new Error(`episode "${id}" is no longer in this lab`);
    return e;
  };

  return {
    'labels/annotators': () => labels.annotators(),
    'labels/add-annotator': ({ name }) => ({ name: labels.addAnnotator(name) }),
    'labels/queues': () => labels.listQueues(),

    'labels/create-queue': ({ kind, matchIds, perMatch, seed = 1, labels: set }) => {
      const all = store.listMatches();
      const ids = matchIds ?? all.map((m) => m.id);
      for (const id of ids) if (!all.some((m) => m.id === id)) throw new Error(`labels/create-queue: no match "${id}" in this lab`);
      if (!ids.length) throw new Error('labels/create-queue: this lab has no matches to sample from; play one in the Arena first');
      const n = perMatch ?? (kind === 'tactic' ? DEFAULT_TACTIC_PER_MATCH : DEFAULT_AUDIT_PER_MATCH);
      const candidates = ids.flatMap((matchId) => allEpisodes(store, matchId).map((e) => ({ matchId, scenarioId: e.scenarioId, episodeId: e.id })));
      const items = sampleQueue(candidates, n, seed).flatMap((c): { episodeId: string; turnIdx: number | null }[] => {
        if (kind === 'audit') return [{ episodeId: c.episodeId, turnIdx: null }];
        // The CA's opening: the episode's first customer turn.
        const opening = episode(c.episodeId).turns.find((t) => t.role === 'customer');
        return opening ? [{ episodeId: c.episodeId, turnIdx: opening.index }] : [];
      });
      if (!items.length)
        throw new Error(`labels/create-queue: matches ${ids.join(', ')} have no ${kind === 'tactic' ? 'customer openings' : 'episodes'} to label`);
      return labels.createQueue({ kind, labels: kind === 'tactic' ? (set ?? DEFAULT_TACTIC_LABELS) : [], matchIds: ids, perMatch: n, seed, items });
    },

    'labels/item': ({ queueId, annotator, pos }): LabelItemView | null => {
      const queue = labels.getQueue(queueId);
      labels.requireAnnotator(annotator);
      const at = pos ?? labels.nextPos(queueId, annotator);
      if (at === null) return null;
      const item = labels.item(queueId, at);
      const e = episode(item.episodeId);
      const mine = labels.own(queueId, at, annotator);
      const match = store.getMatch(e.matchId);
      const labelled = mine !== null && mine.value !== null;
      return {
        queueId,
        kind: queue.kind,
        pos: at,
        total: queue.items,
        done: queue.progress.find((p) => p.annotator === annotator)?.labelled ?? 0,
        text: item.turnIdx === null ? '' : (e.turns[item.turnIdx]?.text ?? ''),
        turns: queue.kind === 'audit' ? e.turns : null,
        mine,
        source: labelled
          ? {
              matchId: e.matchId,
              episodeId: e.id,
              scenarioId: e.scenarioId,
              daSpec: match?.daSpec ?? '',
              caSpec: match?.caSpec ?? '',
              ...(queue.kind === 'audit'
                ? { judge: { resolved: e.judge.resolved, tier: e.judge.tier, hallucination: e.judge.hallucination, rationale: e.judge.rationale } }
                : {}),
            }
          : null,
      };
    },

    'labels/put': ({ note = '', ...rest }) => labels.put({ ...rest, note }),
    'labels/undo': ({ queueId, annotator }) => {
      labels.requireAnnotator(annotator);
      return { pos: labels.undo(queueId, annotator) };
    },

    'labels/tactic-report': ({ queueId }) => {
      const queue = labels.getQueue(queueId);
      if (queue.kind !== 'tactic') throw new Error(`labels/tactic-report: queue ${queueId} is a judge audit; ask labels/audit-report`);
      const byPos = groupLabels(labels, queueId);
      const specs = new Map(store.listMatches().map((m) => [m.id, m.caSpec]));
      const items: TacticItemInput[] = labels.items(queueId).map((it) => {
        const e = episode(it.episodeId);
        return {
          pos: it.pos,
          matchId: e.matchId,
          caSpec: specs.get(e.matchId) ?? '',
          text: e.turns[it.turnIdx ?? 0]?.text ?? '',
          expectedTool: e.expectedTool,
          labels: (byPos.get(it.pos) ?? {}) as Record<string, string>,
        };
      });
      return tacticReport(queueId, queue.labels, annotatorsOf(byPos), items);
    },

    'labels/audit-report': async ({ queueId, judge: spec }) => {
      const queue = labels.getQueue(queueId);
      if (queue.kind !== 'audit') throw new Error(`labels/audit-report: queue ${queueId} holds tactic labels; ask labels/tactic-report`);
      const byPos = groupLabels(labels, queueId);
      const summaries = new Map<string, EpisodeSummary[]>(queue.matchIds.map((id) => [id, allEpisodes(store, id)]));
      const byId = new Map([...summaries.values()].flat().map((e) => [e.id, e]));
      let items: AuditItemInput[] = labels.items(queueId).flatMap((it) => {
        const e = byId.get(it.episodeId);
        return e ? [{ pos: it.pos, episode: e, labels: (byPos.get(it.pos) ?? {}) as Record<string, AuditValue> }] : [];
      });
      if (spec !== undefined) {
        // Another judge: re-judge each labelled episode's transcript (the per-match impact stays on the stored verdicts).
        if (!resolveJudge) throw new Error('labels/audit-report: this engine cannot resolve a judge SPEC');
        const judge = resolveJudge(spec);
        const rejudged: AuditItemInput[] = [];
        for (const it of items) {
          const full = store.getEpisode(it.episode.id);
          if (!full) throw new Error(`labels/audit-report: episode ${it.episode.id} is gone from the lab`);
          rejudged.push({ ...it, episode: { ...it.episode, judge: await judge.judge(transcriptOfEpisode(full)) } });
        }
        items = rejudged;
      }
      const matches = store
        .listMatches()
        .filter((m) => summaries.has(m.id))
        .map((match) => ({ match, episodes: summaries.get(match.id)! }));
      const report = auditReport(queueId, annotatorsOf(byPos), items, matches, stoppingOf(matches[0]?.match));
      return spec === undefined ? report : { ...report, judge: spec };
    },

    'labels/export': ({ queueId, format }) => ({
      filename: `sparring-labels-${queueId ?? 'all'}.${format}`,
      content: formatLabelExport(labelExportRows(store, labels, queueId), format),
    }),
  };
}

/** pos → annotator → value, skips left out. */
function groupLabels(labels: LabelStore, queueId: string): Map<number, Record<string, unknown>> {
  const out = new Map<number, Record<string, unknown>>();
  for (const l of labels.labels(queueId)) {
    if (l.value === null) continue;
    out.set(l.pos, { ...(out.get(l.pos) ?? {}), [l.annotator]: l.value });
  }
  return out;
}

function annotatorsOf(byPos: Map<number, Record<string, unknown>>): string[] {
  return [...new Set([...byPos.values()].flatMap((r) => Object.keys(r)))].sort();
}
