/**
 * What the Annotate and Judge audit screens show, computed from stored labels: the per-match
 * tactic distribution (RL-ADA Table 5), agreement between annotators and with the rule-based
 * classifier, and the judge audit (Table 1 against people) with its effect on W_DA and on the
 * stopping rule.
 */
import type { StoppingConfig } from '../config';
import { stoppingDecision } from '../coevolution/stopping';
import type { DomainTool } from '../domain/types';
import { compareWithLabels } from '../judge/judge-eval';
import type { EpisodeSummary, MatchRecord } from '../store/port';
import { cohenKappa, fleissCounts, fleissKappa, krippendorffAlphaNominal } from './agreement';
import { classifyTactic, tacticFeatures } from './tactic-classifier';
import type { AuditDisagreement, AuditMatchImpact, AuditReport, AuditValue, KappaFigure, TacticReport } from './types';

const figure = (n: number, value: number): KappaFigure => ({ n, value });

export interface TacticItemInput {
  pos: number;
  matchId: string;
  caSpec: string;
  text: string;
  expectedTool: DomainTool;
  /** annotator → label; skipped and unlabelled items are absent. */
  labels: Record<string, string>;
}

/** The plurality label, or null when none or tied. */
export function plurality(values: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  if (!ranked.length || (ranked.length > 1 && ranked[1]![1] === ranked[0]![1])) return null;
  return ranked[0]![0];
}

export function tacticReport(queueId: string, labels: readonly string[], annotators: readonly string[], items: readonly TacticItemInput[]): TacticReport {
  const byRater = annotators.map((a) => items.map((it) => it.labels[a] ?? null));
  const pairs: TacticReport['agreement']['pairs'] = [];
  for (let i = 0; i < annotators.length; i++) {
    for (let j = i + 1; j < annotators.length; j++) {
      const n = items.filter((it) => it.labels[annotators[i]!] !== undefined && it.labels[annotators[j]!] !== undefined).length;
      pairs.push({ a: annotators[i]!, b: annotators[j]!, ...figure(n, cohenKappa(byRater[i]!, byRater[j]!)) });
    }
  }
  let fleiss: KappaFigure | null = null;
  let alpha: KappaFigure | null = null;
  if (annotators.length >= 2) {
    const table = fleissCounts(byRater, labels);
    fleiss = figure(table.length, fleissKappa(table));
    alpha = figure(items.filter((it) => Object.keys(it.labels).length >= 2).length, krippendorffAlphaNominal(byRater));
  }

  const rows = items.map((it) => {
    const f = tacticFeatures(it.text, it.expectedTool);
    return {
      pos: it.pos,
      matchId: it.matchId,
      consensus: plurality(Object.values(it.labels)),
      byAnnotator: { ...it.labels },
      tokens: f.tokens,
      entityDensity: f.entityDensity,
      decoyCues: f.decoyCues,
      auto: classifyTactic(f),
    };
  });

  const perMatch: TacticReport['perMatch'] = [];
  for (const matchId of [...new Set(items.map((it) => it.matchId))]) {
    const mine = items.filter((it) => it.matchId === matchId && Object.keys(it.labels).length > 0);
    const shares = Object.fromEntries(labels.map((l) => [l, 0]));
    for (const it of mine) {
      const votes = Object.values(it.labels);
      for (const v of votes) shares[v] = (shares[v] ?? 0) + 1 / votes.length / mine.length;
    }
    perMatch.push({ matchId, caSpec: items.find((it) => it.matchId === matchId)!.caSpec, items: mine.length, shares });
  }

  // The classifier only knows the default labels; items whose auto label is outside this queue's set
  // are compared as they are (a disagreement), so a custom set lowers κ rather than hiding items.
  const autoAll = rows.map((r) => r.auto);
  const withConsensus = rows.map((r) => r.consensus);
  const auto = {
    consensus: figure(withConsensus.filter((c) => c !== null).length, cohenKappa(withConsensus, autoAll)),
    perAnnotator: annotators.map((a, i) => ({ annotator: a, ...figure(byRater[i]!.filter((l) => l !== null).length, cohenKappa(byRater[i]!, autoAll)) })),
  };
  return { queueId, labels: [...labels], annotators: [...annotators], perMatch, agreement: { pairs, fleiss, alpha }, items: rows, auto };
}

// -------------------------------------------------------------------------------------------
// Judge audit.

export interface AuditItemInput {
  pos: number;
  episode: EpisodeSummary;
  /** annotator → verdict; skipped items are absent. */
  labels: Record<string, AuditValue>;
}

/**
 * The annotators' joint verdict: the majority on each yes/no field (null on a tie) and the lower
 * median tier (with an even number of tiers, the stricter middle one).
 */
export function auditConsensus(values: readonly AuditValue[]): AuditValue | null {
  if (!values.length) return null;
  const majority = (f: (v: AuditValue) => boolean) => {
    const yes = values.filter(f).length;
    return yes * 2 === values.length ? null : yes * 2 > values.length;
  };
  const resolved = majority((v) => v.resolved);
  const hallucination = majority((v) => v.hallucination);
  if (resolved === null || hallucination === null) return null;
  const tiers = values.map((v) => v.tier).sort((a, b) => a - b);
  return { resolved, hallucination, tier: tiers[Math.floor((tiers.length - 1) / 2)]! };
}

/** Share of CA-winnable episodes that the DA routed correctly and that count as resolved. */
function judgedWinRate(episodes: readonly EpisodeSummary[], resolved: (e: EpisodeSummary) => boolean): number | null {
  const winnable = episodes.filter((e) => !e.fraudReference);
  if (!winnable.length) return null;
  return winnable.filter((e) => e.routedTool === e.expectedTool && resolved(e)).length / winnable.length;
}

/**
 * The judge against the audit. `matches` are the queue's matches oldest first, each with every
 * one of its episodes: the stopping rule is replayed over them as one sequence, once on the
 * judge's resolution and once with the audit's resolution on audited episodes.
 */
export function auditReport(
  queueId: string,
  annotators: readonly string[],
  items: readonly AuditItemInput[],
  matches: readonly { match: MatchRecord; episodes: readonly EpisodeSummary[] }[],
  stopping: StoppingConfig,
): AuditReport {
  const decided: { pos: number; episode: EpisodeSummary; value: AuditValue }[] = [];
  let tied = 0;
  for (const it of items) {
    const values = Object.values(it.labels);
    if (!values.length) continue;
    const c = auditConsensus(values);
    if (c) decided.push({ pos: it.pos, episode: it.episode, value: c });
    else tied++;
  }
  const compared = compareWithLabels(decided.map((d) => ({ id: String(d.pos), labels: d.value, verdict: d.episode.judge })));
  const byPos = new Map(decided.map((d) => [String(d.pos), d]));
  const disagreements: AuditDisagreement[] = compared.disagreements.map((x) => ({
    pos: Number(x.id),
    episodeId: byPos.get(x.id)!.episode.id,
    field: x.field,
    label: x.label,
    judged: x.judged,
    rationale: x.rationale,
  }));

  const human = new Map(decided.map((d) => [d.episode.id, d.value.resolved]));
  const judgeSeries: number[] = [];
  const humanSeries: number[] = [];
  const perMatch: AuditMatchImpact[] = matches.map(({ match, episodes }) => {
    const wJudge = judgedWinRate(episodes, (e) => e.judge.resolved);
    const wHuman = judgedWinRate(episodes, (e) => human.get(e.id) ?? e.judge.resolved);
    let stopJudge = null;
    let stopHuman = null;
    if (wJudge !== null && wHuman !== null) {
      judgeSeries.push(wJudge);
      humanSeries.push(wHuman);
      stopJudge = stoppingDecision(judgeSeries, stopping);
      stopHuman = stoppingDecision(humanSeries, stopping);
    }
    return {
      matchId: match.id,
      wDa: match.wDa,
      wJudge,
      wHuman,
      audited: episodes.filter((e) => human.has(e.id)).length,
      // Rounded as the stopping rule's stability gate is, so 0.05000000000000004 is not > 0.05.
      exceedsEpsilon: wJudge !== null && wHuman !== null && Math.round(Math.abs(wHuman - wJudge) * 1e9) / 1e9 > stopping.epsilon,
      stopJudge,
      stopHuman,
      flips: stopJudge !== null && stopHuman !== null && stopJudge.stop !== stopHuman.stop,
    };
  });
  return {
    queueId,
    annotators: [...annotators],
    n: decided.length,
    tied,
    resolution: compared.resolution,
    tierSpearman: Number.isNaN(compared.tierSpearman) ? null : compared.tierSpearman,
    hallucination: compared.hallucination,
    disagreements,
    epsilon: stopping.epsilon,
    perMatch,
  };
}
