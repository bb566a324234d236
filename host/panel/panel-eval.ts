/**
 * The panel evaluation of a DA in a lab (core/arena/panel.ts): reads what the lab offers as
 * counterparts (finished runs' final CAs with their lineage, human-played customer episodes,
 * LLM endpoints), picks the DA's panel and its training counterpart, plays the held-out
 * evaluation against each, and keeps every result in `panel_evaluations` (migration 15) keyed by
 * (DA, counterpart, protocol): a second call — or a study resumed after a kill — reuses what is
 * there and computes only what is missing.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import type { CaPolicy } from '../../core/agents/policy';
import type { DaPolicy } from '../../core/agents/policy';
import { evaluateDa, heldoutMetrics } from '../../core/arena/evaluate';
import type { HeldoutMetrics } from '../../core/arena/evaluate';
import { runEpisode } from '../../core/arena/match';
import { PanelError, ReplayCa, panelSummary, selectPanel } from '../../core/arena/panel';
import type { DaTraining, PanelCandidates, PanelCounterpart, PanelMeasurement, PanelSummary, ReplayStats } from '../../core/arena/panel';
import { DEFAULT_CONFIG } from '../../core/config';
import type { SparringConfig } from '../../core/config';
import type { Domain } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import type { EpisodeRecord } from '../../core/store/port';
import { BuiltinCa } from '../../models/builtin-ca';
import { CaModel } from '../../models/ca-model';
import type { SessionSettings } from '../../models/session';
import { resolveCa, resolveDa } from '../policies/policies';
import { checkpointStore } from '../store/checkpoint-store';
import { llmStore } from '../store/llm-store';
import { openSqliteStore } from '../store/sqlite-store';

export { PanelError };

/** Seeds and episodes of the held-out passes: a stored result is reused only under the same protocol. */
export interface PanelProtocol {
  seeds: readonly number[];
  episodesPerScenario: number;
}

export const protocolKey = (p: PanelProtocol) => `seeds=${p.seeds.join(',')};episodes=${p.episodesPerScenario}`;

export interface PanelEvalOptions {
  db: string;
  domain: Domain;
  /** The DA's SPEC: a checkpoint name or `latest` (its lineage is read from the lab), or `scripted`. */
  da: string;
  panel: 'auto' | readonly string[];
  protocol: PanelProtocol;
  session?: SessionSettings;
  config?: SparringConfig;
  /** Runs whose final CAs may sit on the panel (default: every finished run of the lab). */
  runs?: readonly string[];
  onProgress?: (label: string, done: number, total: number) => void;
  /** A counterpart settled (computed, reused, or failed). */
  onCounterpart?: (c: PanelCounterpart, how: 'computed' | 'reused' | 'failed', detail: string) => void;
  /** Shared by the evaluations of one panel step (a study's): see PanelMemo. Default: one for this call. */
  memo?: PanelMemo;
}

export interface PanelEvaluation {
  /** The DA checkpoint (or SPEC) evaluated. */
  da: string;
  /** The run the DA was trained in, or null. */
  daRun: string | null;
  protocol: PanelProtocol;
  panel: PanelCounterpart[];
  /** The DA's training counterpart: its run's final CA (CA0 for a fixed-opponent run); null outside a run. */
  trainingCounterpart: PanelCounterpart | null;
  summary: PanelSummary;
  /** Counterparts whose evaluation failed (an unreachable LLM endpoint), with why; left out of the average. */
  failed: { counterpart: PanelCounterpart; error: string }[];
  computed: number;
  reused: number;
}

interface StoredResult {
  heldout: HeldoutMetrics;
  replay?: ReplayStats;
}

/**
 * What the evaluations of one panel step share, in one process and one lab with one domain: the
 * runs of each checkpoint's lineage, the content of each checkpoint (its model JSON and weights,
 * which are all a builtin policy plays from), the CA models loaded, and the results computed so
 * far by (DA content, counterpart content, config, protocol). A held-out pass depends on the
 * seeds, the config and the two policies' weights only — never on their names — so a pair whose
 * weights equal a pair already evaluated takes its figures instead of playing them again. In a
 * study that is most pairs: the arms of a seed share DA0 and CA0, and an arm whose DA or CA never
 * trained ends on a copy of them (the paper study: 2,875 distinct of its 4,480 DA and run-CA pairs).
 */
export class PanelMemo {
  readonly lineageRuns = new Map<string, string[]>();
  readonly results = new Map<string, StoredResult>();
  private readonly contents = new Map<string, { id: string; key: string } | null>();
  private readonly caModels = new Map<string, Promise<CaModel>>();

  /** A builtin checkpoint's id and content key; null for an LLM checkpoint or a name that is none. */
  content(db: Database, name: string, role: 'DA' | 'CA'): { id: string; key: string } | null {
    const k = `${role}:${name}`;
    let c = this.contents.get(k);
    if (c === undefined) {
      // The weights' sha256 (migration 23), or, for a checkpoint saved before it, its inline weights
      // to hash here; the optimiser state is not read.
      const row = db
        .prepare('SELECT id, model_json, weights_hash, CASE WHEN weights_hash IS NULL THEN weights END AS weights FROM checkpoints WHERE name = ? AND role = ?')
        .get(name, role) as { id: string; model_json: string; weights_hash: string | null; weights: Buffer | null } | undefined;
      const weightsHash = row?.weights_hash ?? (row?.weights?.byteLength ? createHash('sha256').update(row.weights).digest('hex') : null);
      c = row && weightsHash ? { id: row.id, key: createHash('sha256').update(row.model_json).update('\0').update(weightsHash).digest('hex') } : null;
      this.contents.set(k, c);
    }
    return c;
  }

  /** The CA model of a builtin checkpoint, loaded once per content. */
  caModel(db: Database, name: string, session: SessionSettings | undefined): Promise<CaModel> {
    const key = this.content(db, name, 'CA')?.key;
    if (key === undefined) throw new PanelError(`checkpoint ${name} is not a builtin CA`);
    let m = this.caModels.get(key);
    if (!m) {
      m = CaModel.fromSnapshot(checkpointStore(db).resolve(name, 'CA').snapshot, session ? { session } : {});
      this.caModels.set(key, m);
      m.catch(() => this.caModels.delete(key));
    }
    return m;
  }

  async dispose(): Promise<void> {
    const models = [...this.caModels.values()];
    this.caModels.clear();
    for (const m of models)
      await m.then(
        (x) => x.dispose(),
        () => undefined,
      );
  }
}

/** The panel_evaluations table. */
export function panelStore(db: Database) {
  const get = db.prepare('SELECT result_json FROM panel_evaluations WHERE da = ? AND counterpart = ? AND protocol = ?').pluck();
  const put = db.prepare(`INSERT OR REPLACE INTO panel_evaluations (da, counterpart, protocol, role, kind, label, created_at, seconds, result_json)
                          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return {
    get(da: string, counterpart: string, protocol: string): StoredResult | null {
      const r = get.get(da, counterpart, protocol) as string | undefined;
      return r ? (JSON.parse(r) as StoredResult) : null;
    },
    save(da: string, c: PanelCounterpart, role: 'panel' | 'training', protocol: string, seconds: number, result: StoredResult): void {
      put.run(da, c.key, protocol, role, c.kind, c.label, new Date().toISOString(), seconds, JSON.stringify(result));
    },
  };
}

/**
 * What the lab holds of a DA's panel evaluations, as one summary: the protocol of the newest
 * result, every counterpart evaluated under it (the run dashboard's Evaluation screen); null
 * when none was run.
 */
export function storedPanel(db: Database, da: string): { da: string; protocol: string; summary: PanelSummary } | null {
  const rows = db
    .prepare('SELECT counterpart, protocol, role, kind, label, result_json FROM panel_evaluations WHERE da = ? ORDER BY created_at, counterpart')
    .all(da) as { counterpart: string; protocol: string; role: 'panel' | 'training'; kind: PanelCounterpart['kind']; label: string; result_json: string }[];
  const protocol = rows.at(-1)?.protocol;
  if (protocol === undefined) return null;
  const of = (r: (typeof rows)[number]): PanelMeasurement => {
    const x = JSON.parse(r.result_json) as StoredResult;
    return {
      counterpart: { key: r.counterpart, kind: r.kind, label: r.label, spec: '', runId: null },
      heldout: x.heldout,
      ...(x.replay ? { replay: x.replay } : {}),
    };
  };
  const mine = rows.filter((r) => r.protocol === protocol);
  const training = mine.find((r) => r.role === 'training');
  return { da, protocol, summary: panelSummary(mine.filter((r) => r.role === 'panel').map(of), training ? of(training) : null) };
}

/** The last CA checkpoint each run saved: its final CA (for a fixed-opponent run, its CA0). */
function finalCaOfRun(db: Database): Map<string, string> {
  const rows = db.prepare("SELECT run_id AS runId, name FROM checkpoints WHERE role = 'CA' AND run_id IS NOT NULL ORDER BY created_at, rowid").all() as {
    runId: string;
    name: string;
  }[];
  const out = new Map<string, string>();
  for (const r of rows) out.set(r.runId, r.name);
  return out;
}

/** What the lab offers as panel members, and what the DA's training shared. */
export function labPanelInputs(
  db: Database,
  daSpec: string,
  runs?: readonly string[],
  memo?: PanelMemo,
): { da: string; daRun: string | null; training: DaTraining; candidates: PanelCandidates; trainingCa: string | null } {
  const checkpoints = checkpointStore(db);
  const lineageRuns = (name: string) => {
    let r = memo?.lineageRuns.get(name);
    if (!r) {
      r = [...new Set(checkpoints.lineage(name).flatMap((c) => (c.runId ? [c.runId] : [])))];
      memo?.lineageRuns.set(name, r);
    }
    return r;
  };
  const finals = finalCaOfRun(db);
  const finished = new Set(db.prepare("SELECT id FROM runs WHERE status = 'finished'").pluck().all() as string[]);
  const eligible = runs ? runs.filter((r) => finished.has(r)) : [...finished];
  const runCas = eligible.flatMap((runId) => {
    const name = finals.get(runId);
    return name ? [{ name, runId, lineageRuns: lineageRuns(name) }] : [];
  });
  // The human_episodes marks (host/store/play-store.ts) of episodes a person played as the customer.
  const humanEpisodes = db.prepare("SELECT episode_id FROM human_episodes WHERE seat = 'customer' ORDER BY played_at, rowid").pluck().all() as string[];
  const llmEndpoints = llmStore(db)
    .listEndpoints()
    .map((e) => e.name);
  const candidates = { runCas, humanEpisodes, llmEndpoints };
  if (daSpec === 'scripted' || llmEndpoints.includes(daSpec)) {
    return { da: daSpec, daRun: null, training: { lineageRuns: [], humanEpisodesSeen: [] }, candidates, trainingCa: null };
  }
  const cp = checkpoints.resolve(daSpec, 'DA');
  return {
    da: cp.name,
    daRun: cp.runId,
    training: { lineageRuns: lineageRuns(cp.name), humanEpisodesSeen: checkpoints.humanEpisodesSeen(cp.name) },
    candidates,
    trainingCa: cp.runId ? (finals.get(cp.runId) ?? null) : null,
  };
}

/**
 * Replay each human customer episode to the DA in its own scenario and world (the episode's
 * seed, so the facts the human spoke of are the account's); the scripted CA takes over where the
 * DA's replies leave the recording.
 */
async function humanEpisodes(
  domain: Domain,
  da: DaPolicy,
  episodes: readonly EpisodeRecord[],
  config: SparringConfig,
  onEpisode: () => void,
): Promise<StoredResult> {
  const played: EpisodeRecord[] = [];
  const replay: ReplayStats = { episodes: 0, openingOnly: 0, replayedTurns: 0, humanTurns: 0 };
  for (const [i, e] of episodes.entries()) {
    const scenario = domain.scenarios.find((s) => s.id === e.scenarioId);
    if (!scenario) throw new PanelError(`human episode ${e.id}: scenario "${e.scenarioId}" is not in the lab's domain`);
    const ca = new ReplayCa(e, new ScriptedCa(domain));
    const out = await runEpisode({ domain, scenario, seed: e.seed, da, ca, judge: judgeEpisode, config, matchId: 'panel-human', index: i });
    played.push(out.record);
    replay.episodes++;
    replay.replayedTurns += ca.replayed;
    replay.humanTurns += ca.humanTurns;
    if (ca.replayed <= 1) replay.openingOnly++;
    onEpisode();
  }
  return { heldout: heldoutMetrics(played), replay };
}

/** Evaluate a DA against its panel (and its training counterpart), reusing stored results. */
export async function evaluatePanel(o: PanelEvalOptions): Promise<PanelEvaluation> {
  const store = openSqliteStore(o.db);
  const config = o.config ?? DEFAULT_CONFIG;
  const key = protocolKey(o.protocol);
  const memo = o.memo ?? new PanelMemo();
  try {
    const inputs = labPanelInputs(store.db, o.da, o.runs, memo);
    const panel = selectPanel(inputs.candidates, inputs.training, o.panel);
    const trainingCounterpart: PanelCounterpart | null = inputs.trainingCa
      ? { key: `ca:${inputs.trainingCa}`, kind: 'run-ca', label: `${inputs.trainingCa} (${inputs.daRun})`, spec: inputs.trainingCa, runId: inputs.daRun }
      : null;
    const results = panelStore(store.db);
    const ctx = { db: o.db, seed: o.protocol.seeds[0] ?? 1, ...(o.session ? { session: o.session } : {}) };
    let da: DaPolicy | null = null;
    const failed: PanelEvaluation['failed'] = [];
    let computed = 0;
    let reused = 0;
    // The key of a pair's figures by content (PanelMemo): builtin DA against a builtin run CA or the scripted CA.
    // (An LLM endpoint's name is played as the endpoint, even where a checkpoint shares it: no content.)
    const daContent =
      inputs.da === 'scripted'
        ? 'scripted'
        : inputs.candidates.llmEndpoints.includes(inputs.da)
          ? null
          : (memo.content(store.db, inputs.da, 'DA')?.key ?? null);
    const configKey = createHash('sha256').update(JSON.stringify(config)).digest('hex');
    const contentKey = (c: PanelCounterpart): string | null => {
      if (daContent === null) return null;
      const cp = c.kind === 'scripted' ? 'scripted' : c.kind === 'run-ca' ? (memo.content(store.db, c.spec, 'CA')?.key ?? null) : null;
      return cp === null ? null : `${daContent}|${cp}|${configKey}|${key}`;
    };
    const measure = async (c: PanelCounterpart, role: 'panel' | 'training'): Promise<PanelMeasurement | null> => {
      const same = contentKey(c);
      const have = results.get(inputs.da, c.key, key);
      if (have) {
        if (same !== null) memo.results.set(same, have);
        reused++;
        o.onCounterpart?.(c, 'reused', '');
        return { counterpart: c, heldout: have.heldout, ...(have.replay ? { replay: have.replay } : {}) };
      }
      const twin = same !== null ? memo.results.get(same) : undefined;
      if (twin) {
        results.save(inputs.da, c, role, key, 0, twin);
        reused++;
        o.onCounterpart?.(c, 'reused', 'same weights as a pair already evaluated');
        return { counterpart: c, heldout: twin.heldout, ...(twin.replay ? { replay: twin.replay } : {}) };
      }
      const started = Date.now();
      try {
        da ??= await resolveDa(inputs.da, o.domain, ctx);
        let r: StoredResult;
        if (c.kind === 'human') {
          const eps = (c.episodeIds ?? []).map((id) => {
            const e = store.getEpisode(id);
            if (!e) throw new PanelError(`human episode ${id} is marked in the lab but not stored`);
            return e;
          });
          let done = 0;
          r = await humanEpisodes(o.domain, da, eps, config, () => o.onProgress?.(c.label, ++done, eps.length));
        } else {
          const builtin = c.kind === 'run-ca' ? memo.content(store.db, c.spec, 'CA') : null;
          const ca: CaPolicy = builtin
            ? new BuiltinCa(await memo.caModel(store.db, c.spec, o.session), o.domain.bank, { name: c.spec, checkpoint: { name: c.spec, id: builtin.id } })
            : await resolveCa(c.spec, o.domain, ctx);
          const e = await evaluateDa({
            domain: o.domain,
            da,
            ca,
            judge: judgeEpisode,
            config,
            seeds: o.protocol.seeds,
            episodesPerScenario: o.protocol.episodesPerScenario,
            gateEpisodesPerScenario: 0,
            onProgress: (d, t) => o.onProgress?.(c.label, d, t),
          });
          r = { heldout: e.heldout };
        }
        const seconds = (Date.now() - started) / 1000;
        results.save(inputs.da, c, role, key, seconds, r);
        if (same !== null) memo.results.set(same, r);
        computed++;
        o.onCounterpart?.(c, 'computed', `${seconds.toFixed(1)} s`);
        return { counterpart: c, heldout: r.heldout, ...(r.replay ? { replay: r.replay } : {}) };
      } catch (e) {
        if (e instanceof PanelError) throw e;
        const error = e instanceof Error ? e.message : String(e);
        failed.push({ counterpart: c, error });
        o.onCounterpart?.(c, 'failed', error);
        return null;
      }
    };
    const training = trainingCounterpart ? await measure(trainingCounterpart, 'training') : null;
    const measured: PanelMeasurement[] = [];
    for (const c of panel) {
      const m = await measure(c, 'panel');
      if (m) measured.push(m);
    }
    return {
      da: inputs.da,
      daRun: inputs.daRun,
      protocol: o.protocol,
      panel,
      trainingCounterpart,
      summary: panelSummary(measured, training),
      failed,
      computed,
      reused,
    };
  } finally {
    if (!o.memo) await memo.dispose();
    store.close();
  }
}
