/**
 * Human labels (issue 6): tactic labels on the CA's opening utterances and judge-audit labels on
 * whole episodes, collected in queues by named annotators. Plain data; these types cross the
 * engine contract.
 */
import type { StopDecision } from '../coevolution/stopping';
import type { BinaryConfusion, BinaryScores } from '../judge/metrics';
import type { TurnRecord } from '../store/port';

export type LabelKind = 'tactic' | 'audit';

/** The default tactic label set (RL-ADA Table 5's categories, plus the two the paper mentions in passing). */
export const DEFAULT_TACTIC_LABELS: readonly string[] = [
  'Direct intent',
  'Vague/indirect',
  'Contextual camouflage',
  'Emotional pressure',
  'Multi-intent',
  'Other',
];
/** Hotkeys 1–9: a label set has at most nine labels. */
export const MAX_LABELS = 9;
/** Openings sampled per match for a tactic queue (RL-ADA Table 5: n ≈ 50 per match). */
export const DEFAULT_TACTIC_PER_MATCH = 50;
/** Episodes sampled per match for a judge audit. */
export const DEFAULT_AUDIT_PER_MATCH = 20;

/** A person's verdict on an episode, the fields of the judge's own (RL-ADA Table 1). */
export interface AuditValue {
  resolved: boolean;
  tier: 1 | 2 | 3 | 4;
  hallucination: boolean;
}

/** A tactic label (one of the queue's labels), an audit verdict, or null for a skipped item. */
export type LabelValue = string | AuditValue | null;

export interface QueueProgress {
  annotator: string;
  labelled: number;
  skipped: number;
}

export interface LabelQueueInfo {
  id: string;
  kind: LabelKind;
  createdAt: string;
  /** Tactic labels in hotkey order (empty for audits). */
  labels: string[];
  matchIds: string[];
  perMatch: number;
  seed: number;
  /** Items in the queue. */
  items: number;
  progress: QueueProgress[];
}

/** What an annotator has written on one item. */
export interface OwnLabel {
  value: LabelValue;
  note: string;
  /** Milliseconds spent on the item, summed over every write. */
  msSpent: number;
  /** 1 on the first write, +1 on each later one; a write may name the revision it saw. */
  revision: number;
}

/** Where an item came from: hidden from an annotator until they have labelled it. */
export interface ItemSource {
  matchId: string;
  episodeId: string;
  scenarioId: string;
  daSpec: string;
  caSpec: string;
  /** Audit items: the judge's verdict. */
  judge?: AuditValue & { rationale: string };
}

export interface LabelItemView {
  queueId: string;
  kind: LabelKind;
  /** Position in the queue (0-based); the item's id within it. */
  pos: number;
  total: number;
  /** Items this annotator has labelled (not skipped) so far. */
  done: number;
  /** Tactic items: the CA's opening utterance. */
  text: string;
  /** Audit items: the whole episode, without the judge's verdict. */
  turns: TurnRecord[] | null;
  mine: OwnLabel | null;
  /** Null until this annotator has labelled the item. */
  source: ItemSource | null;
}

export interface KappaFigure {
  /** Items the figure rests on. */
  n: number;
  value: number;
}

export interface TacticAgreement {
  /** Cohen's κ of every pair of annotators, over the items both labelled. */
  pairs: (KappaFigure & { a: string; b: string })[];
  /** Fleiss' κ over the items every annotator labelled (null with fewer than two annotators). */
  fleiss: KappaFigure | null;
  /** Krippendorff's α (nominal) over every item at least two annotators labelled. */
  alpha: KappaFigure | null;
}

export interface TacticItemRow {
  pos: number;
  matchId: string;
  /** The annotators' plurality label; null on a tie or with no label. */
  consensus: string | null;
  /** Each annotator's label (missing: not labelled or skipped). */
  byAnnotator: Record<string, string>;
  tokens: number;
  entityDensity: number;
  decoyCues: number;
  /** The rule-based classifier's label. */
  auto: string;
}

export interface TacticReport {
  queueId: string;
  labels: string[];
  annotators: string[];
  /** Per match: the share of each label (each item's annotators vote with equal weight), Table 5. */
  perMatch: { matchId: string; caSpec: string; items: number; shares: Record<string, number> }[];
  agreement: TacticAgreement;
  items: TacticItemRow[];
  /** Cohen's κ of the automatic classifier against the consensus and against each annotator. */
  auto: { consensus: KappaFigure; perAnnotator: (KappaFigure & { annotator: string })[] };
}

export interface AuditDisagreement {
  pos: number;
  episodeId: string;
  field: keyof AuditValue;
  label: boolean | number;
  judged: boolean | number;
  rationale: string;
}

export interface AuditMatchImpact {
  matchId: string;
  /** Arena W_DA as stored (routing wins over CA-winnable scenarios); the judge does not enter it. */
  wDa: number | null;
  /** Share of CA-winnable episodes the DA routed correctly and the judge calls resolved. */
  wJudge: number | null;
  /** The same with the judge's resolution replaced by the audit's on audited episodes. */
  wHuman: number | null;
  audited: number;
  /** |wHuman − wJudge| > ε. */
  exceedsEpsilon: boolean;
  /** The stopping rule over the queue's matches up to this one, on wJudge and on wHuman. */
  stopJudge: StopDecision | null;
  stopHuman: StopDecision | null;
  /** The two decisions differ (stop vs continue). */
  flips: boolean;
}

export interface AuditReport {
  queueId: string;
  /** The judge compared with the people: a judge SPEC, or absent for the verdicts stored with the episodes. */
  judge?: string;
  annotators: string[];
  /** Items with a consensus verdict (every field decided) — what the scores rest on. */
  n: number;
  /** Labelled items left out because the annotators tied on a field. */
  tied: number;
  resolution: BinaryScores & { confusion: BinaryConfusion };
  /** NaN (null over the wire) when undefined. */
  tierSpearman: number | null;
  hallucination: BinaryScores & { confusion: BinaryConfusion };
  disagreements: AuditDisagreement[];
  epsilon: number;
  perMatch: AuditMatchImpact[];
}

/** One exported label row (JSON and CSV). */
export interface LabelExportRow {
  queue_id: string;
  kind: LabelKind;
  /** `${queue_id}/${pos}`. */
  item_id: string;
  pos: number;
  match_id: string;
  episode_id: string;
  turn_idx: number | null;
  /** Tactic items: the CA's opening (the labelled turn's text); null for audits. */
  text: string | null;
  annotator: string;
  skipped: boolean;
  tactic: string | null;
  resolved: boolean | null;
  tier: number | null;
  hallucination: boolean | null;
  note: string;
  ms_spent: number;
  revision: number;
  created_at: string;
  updated_at: string;
}
