/**
 * A run's content, hashed table by table: what "byte-identical" means when a refactor (banking
 * moving into a domain pack, issue 53) must leave a seeded run exactly as it was. A run's numbers
 * depend on its seed and config only, so two labs that ran the same seed and config must give the
 * same digest; wall-clock columns (created_at, updated_at) are left out, nothing else is.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';

/** The tables a digest covers, in the order it prints them. */
export const DIGEST_PARTS = ['matches', 'episodes', 'turns', 'turn_rewards', 'checkpoints', 'run_metrics'] as const;
export type DigestPart = (typeof DIGEST_PARTS)[number];

export interface RunDigest {
  runId: string;
  /** sha256 (hex) of each part's rows, in a fixed order, as JSON lines. */
  parts: Record<DigestPart, { rows: number; sha256: string }>;
  /** sha256 over the parts' hashes: one figure to compare. */
  sha256: string;
}

function hashRows(rows: unknown[]): { rows: number; sha256: string } {
  const h = createHash('sha256');
  // Bytes stand for their sha256, as checkpoint_blobs names them (JSON would spell them out).
  const cell = (v: unknown) => (Buffer.isBuffer(v) ? createHash('sha256').update(v).digest('hex') : v);
  for (const r of rows as unknown[][]) h.update(JSON.stringify(r.map(cell)) + '\n');
  return { rows: rows.length, sha256: h.digest('hex') };
}

/** The digest of one run of a lab (throws when the lab has no such run). */
export function runDigest(db: Database, runId: string): RunDigest {
  if (!db.prepare('SELECT 1 FROM runs WHERE id = ?').get(runId)) throw new Error(`no run ${runId} in this lab`);
  const matchIds = "SELECT id FROM matches WHERE id LIKE ? || '-M%'";
  const queries: Record<DigestPart, string> = {
    matches: `SELECT id, seed, da_spec, ca_spec, scenario_set, episodes_per_scenario, w_da, fraud_rate, config_json,
                (SELECT json_group_array(json_array(pos, scenario_id, fraud_reference, episodes, da_wins, da_win_rate))
                   FROM (SELECT * FROM match_scenarios s WHERE s.match_id = m.id ORDER BY pos)) AS scenarios
                FROM matches m WHERE id IN (${matchIds}) ORDER BY seq`,
    episodes: `SELECT * FROM episodes WHERE match_id IN (${matchIds}) ORDER BY match_id, idx`,
    turns: `SELECT t.* FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.match_id IN (${matchIds}) ORDER BY e.match_id, e.idx, t.idx`,
    turn_rewards: `SELECT r.* FROM turn_rewards r JOIN episodes e ON e.id = r.episode_id WHERE e.match_id IN (${matchIds})
                     ORDER BY e.match_id, e.idx, r.turn_idx, r.term`,
    // Weights and optimiser state by content, wherever the lab keeps the bytes (inline or in checkpoint_blobs).
    checkpoints: `SELECT c.name, c.role, c.generation, c.step, c.source, p.name AS parent, c.model_json, c.metrics_json, c.training_data_json,
                    COALESCE(c.weights_hash, CASE WHEN length(c.weights) > 0 THEN c.weights END) AS weights,
                    COALESCE(c.optimiser_hash, c.optimiser) AS optimiser
                    FROM checkpoints c LEFT JOIN checkpoints p ON p.id = c.parent_id WHERE c.run_id = ? ORDER BY c.generation, c.role, c.name`,
    run_metrics: 'SELECT phase, key, step, value FROM run_metrics WHERE run_id = ? ORDER BY phase, key, step',
  };
  const parts = {} as RunDigest['parts'];
  for (const part of DIGEST_PARTS) parts[part] = hashRows(db.prepare(queries[part]).raw().all(runId));
  const all = createHash('sha256');
  for (const part of DIGEST_PARTS) all.update(`${part} ${parts[part].sha256}\n`);
  return { runId, parts, sha256: all.digest('hex') };
}
