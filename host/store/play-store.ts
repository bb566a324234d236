/**
 * Human play in the lab database: unfinished sessions (drafts, resumable after a closed window)
 * and the marks of finished human-played episodes (who played, which seat, what it forked from).
 * A finished episode is stored as a one-episode match `H<n>` (scenario set "human"), so every
 * screen and export that reads episodes reads it too; storing it, marking it and deleting its
 * draft is one transaction.
 */
import type { CheckpointRef } from '../../core/agents/policy';
import type { EpisodeRecord, MatchRecord } from '../../core/store/port';
import type { ReplayTurn, Seat } from '../../core/play/human-episode';
import type { HumanEpisodeRow, PlaySessionRow } from './rows';
import type { SqliteRunStore } from './sqlite-store';

export interface ForkPoint {
  episodeId: string;
  /** The first turn the person played instead of the stored one. */
  turn: number;
}

/** An unfinished human-played episode. */
export interface PlayDraft {
  id: string;
  createdAt: string;
  updatedAt: string;
  player: string;
  seat: Seat;
  /** The policy SPEC in the other seat. */
  opponent: string;
  /** The checkpoint `opponent` resolved to when the session started (null: not a checkpoint, or not yet loaded); a resume plays it again. */
  opponentCheckpoint: CheckpointRef | null;
  scenarioId: string;
  seed: number;
  /** The SparringConfig the episode is played and scored under, as JSON. */
  configJson: string;
  forkedFrom: ForkPoint | null;
  /** Turns so far, replayed in order on resume. */
  turns: ReplayTurn[];
}

/** Who played a stored episode, and from where. */
export interface HumanEpisodeMark {
  episodeId: string;
  player: string;
  seat: Seat;
  opponent: string;
  playedAt: string;
  forkedFrom: ForkPoint | null;
}

export interface PlayStore {
  /** Insert or update a draft (after every move). */
  saveDraft(d: PlayDraft): void;
  getDraft(id: string): PlayDraft | null;
  /** Newest first. */
  listDrafts(): PlayDraft[];
  /** True when there was such a draft. */
  deleteDraft(id: string): boolean;
  /** The next free human match id: H1, H2, … */
  nextMatchId(): string;
  /** Store the finished episode as its match, mark it, and delete the draft — all or nothing. */
  /** Store the episode and drop its draft, in one transaction with `also` (the session's LLM calls). */
  finish(draftId: string, match: MatchRecord, episode: EpisodeRecord, mark: HumanEpisodeMark, also?: () => void): void;
  mark(episodeId: string): HumanEpisodeMark | null;
  /**
   * Human-played episodes, newest first: of one seat, played at or before `before` (ISO time),
   * at most `limit`.
   */
  listHumanEpisodes(q?: { seat?: Seat; before?: string; limit?: number }): HumanEpisodeMark[];
}

export function playStore(store: SqliteRunStore): PlayStore {
  const { db } = store;
  const upsert = db.prepare(`
    INSERT INTO play_sessions (id, created_at, updated_at, player, seat, opponent, opponent_checkpoint_id, opponent_checkpoint_name,
                               scenario_id, seed, config_json, forked_from_episode, forked_from_turn, turns_json)
    VALUES (@id, @createdAt, @updatedAt, @player, @seat, @opponent, @opponentCheckpointId, @opponentCheckpointName,
            @scenarioId, @seed, @configJson, @forkEpisode, @forkTurn, @turnsJson)
    ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, turns_json = excluded.turns_json,
      -- A draft saved before the checkpoint was recorded gets the one it resumed with, once.
      opponent_checkpoint_id = coalesce(opponent_checkpoint_id, excluded.opponent_checkpoint_id),
      opponent_checkpoint_name = coalesce(opponent_checkpoint_name, excluded.opponent_checkpoint_name)`);
  const selectDraft = db.prepare<[string], PlaySessionRow>('SELECT * FROM play_sessions WHERE id = ?');
  const selectDrafts = db.prepare<[], PlaySessionRow>('SELECT * FROM play_sessions ORDER BY updated_at DESC, rowid DESC');
  const removeDraft = db.prepare('DELETE FROM play_sessions WHERE id = ?');
  const humanIds = db.prepare<[], string>("SELECT id FROM matches WHERE id GLOB 'H[0-9]*'").pluck();
  const insertMark = db.prepare(`
    INSERT INTO human_episodes (episode_id, player, seat, opponent, played_at, forked_from_episode, forked_from_turn)
    VALUES (@episodeId, @player, @seat, @opponent, @playedAt, @forkEpisode, @forkTurn)`);
  const selectMark = db.prepare<[string], HumanEpisodeRow>('SELECT * FROM human_episodes WHERE episode_id = ?');

  const finish = db.transaction((draftId: string, match: MatchRecord, episode: EpisodeRecord, mark: HumanEpisodeMark, also?: () => void) => {
    store.saveMatch(match, [episode]);
    insertMark.run({ ...mark, forkEpisode: mark.forkedFrom?.episodeId ?? null, forkTurn: mark.forkedFrom?.turn ?? null });
    removeDraft.run(draftId);
    also?.();
  });

  return {
    saveDraft(d) {
      upsert.run({
        ...d,
        opponentCheckpointId: d.opponentCheckpoint?.id ?? null,
        opponentCheckpointName: d.opponentCheckpoint?.name ?? null,
        forkEpisode: d.forkedFrom?.episodeId ?? null,
        forkTurn: d.forkedFrom?.turn ?? null,
        turnsJson: JSON.stringify(d.turns),
      });
    },
    getDraft(id) {
      const r = selectDraft.get(id);
      return r ? draftOf(r) : null;
    },
    listDrafts() {
      return selectDrafts.all().map(draftOf);
    },
    deleteDraft(id) {
      return removeDraft.run(id).changes > 0;
    },
    nextMatchId() {
      const max = Math.max(
        0,
        ...humanIds
          .all()
          .map((id) => Number(id.slice(1)))
          .filter(Number.isSafeInteger),
      );
      return `H${max + 1}`;
    },
    finish(draftId, match, episode, mark, also) {
      // IMMEDIATE, as saveMatch: take the write lock before reading anything.
      finish.immediate(draftId, match, episode, mark, also);
    },
    mark(episodeId) {
      const r = selectMark.get(episodeId);
      return r ? markOf(r) : null;
    },
    listHumanEpisodes(q = {}) {
      const where: string[] = [];
      if (q.seat !== undefined) where.push('seat = @seat');
      if (q.before !== undefined) where.push('played_at <= @before');
      const sql = `SELECT * FROM human_episodes ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                   ORDER BY played_at DESC, rowid DESC LIMIT @limit`;
      const params: { limit: number; seat?: Seat; before?: string } = { limit: q.limit ?? -1 };
      if (q.seat !== undefined) params.seat = q.seat;
      if (q.before !== undefined) params.before = q.before;
      return db.prepare<typeof params, HumanEpisodeRow>(sql).all(params).map(markOf);
    },
  };
}

function forkOf(r: Pick<PlaySessionRow, 'forked_from_episode' | 'forked_from_turn'>): ForkPoint | null {
  return r.forked_from_episode === null ? null : { episodeId: r.forked_from_episode, turn: r.forked_from_turn ?? 0 };
}

function draftOf(r: PlaySessionRow): PlayDraft {
  return {
    id: r.id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    player: r.player,
    seat: r.seat,
    opponent: r.opponent,
    opponentCheckpoint:
      r.opponent_checkpoint_id === null ? null : { id: r.opponent_checkpoint_id, name: r.opponent_checkpoint_name ?? r.opponent_checkpoint_id },
    scenarioId: r.scenario_id,
    seed: r.seed,
    configJson: r.config_json,
    forkedFrom: forkOf(r),
    turns: JSON.parse(r.turns_json) as ReplayTurn[],
  };
}

function markOf(r: HumanEpisodeRow): HumanEpisodeMark {
  return { episodeId: r.episode_id, player: r.player, seat: r.seat, opponent: r.opponent, playedAt: r.played_at, forkedFrom: forkOf(r) };
}
