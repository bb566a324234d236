/**
 * A lab with many episodes for the transcript list's scale check (test/e2e only):
 * `node --import tsx seed-lab.ts DB N` plays one real scripted arena match (180 episodes), stores
 * it, then copies it in SQL (matches, scenarios, episodes, turns, reward terms) until the lab holds
 * exactly N episodes. Copies keep every column, so any copied episode opens like the original.
 * Prints one JSON line: {episodes, matches, seconds}.
 */
import { runMatch } from '../../../core/arena/match';
import { selectScenarios } from '../../../core/arena/scenarios';
import { ScriptedCa } from '../../../core/agents/scripted-ca';
import { ScriptedDa } from '../../../core/agents/scripted-da';
import { DEFAULT_CONFIG } from '../../../core/config';
import { judgeEpisode } from '../../../core/judge/judge';
import { bankingDomain } from '../../../host/domain-files';
import { openSqliteStore } from '../../../host/store/sqlite-store';

const [dbPath, nArg] = process.argv.slice(2);
const N = Number(nArg ?? 100_000);
if (!dbPath || !Number.isInteger(N) || N < 1) throw new Error('usage: seed-lab.ts DB N (N a positive integer)');

const t0 = performance.now();
const domain = bankingDomain();
const store = openSqliteStore(dbPath);
const { match, episodes } = await runMatch({
  matchId: 'M1',
  createdAt: '2026-01-01T00:00:00.000Z',
  domain,
  scenarios: selectScenarios(domain, 'arena'),
  scenarioSet: 'arena',
  da: new ScriptedDa(),
  ca: new ScriptedCa(domain),
  judge: judgeEpisode,
  config: DEFAULT_CONFIG,
  seed: 1,
  concurrency: 32,
});
store.saveMatch(match, episodes);
const per = episodes.length;
const db = store.db;
const cols = (table: string) => db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
const copy = (table: string, set: Record<string, string>, where: string) => {
  const names = cols(table).filter((c) => c !== 'seq');
  const exprs = names.map((c) => set[c] ?? c);
  return db.prepare(`INSERT INTO ${table} (${names.join(', ')}) SELECT ${exprs.join(', ')} FROM ${table} WHERE ${where}`);
};
// @m: the new match id; @at: its creation time; @n: episodes to copy (the last match may be partial).
const copyMatch = copy('matches', { id: '@m', created_at: '@at' }, "id = 'M1'");
const copyScenarios = copy('match_scenarios', { match_id: '@m' }, "match_id = 'M1'");
const newId = '@m || substr(id, 3)';
const copyEpisodes = copy('episodes', { id: newId, match_id: '@m' }, "match_id = 'M1' AND idx < @n");
const copyTurns = copy('turns', { episode_id: '@m || substr(episode_id, 3)' }, "episode_id IN (SELECT id FROM episodes WHERE match_id = 'M1' AND idx < @n)");
const copyRewards = copy(
  'turn_rewards',
  { episode_id: '@m || substr(episode_id, 3)' },
  "episode_id IN (SELECT id FROM episodes WHERE match_id = 'M1' AND idx < @n)",
);
let matches = 1;
db.transaction(() => {
  for (let left = N - per; left > 0; left -= per) {
    matches++;
    const p = { m: `M${matches}`, at: new Date(Date.UTC(2026, 0, 1, 0, matches)).toISOString(), n: Math.min(per, left) };
    copyMatch.run({ m: p.m, at: p.at });
    copyScenarios.run({ m: p.m });
    copyEpisodes.run(p);
    copyTurns.run({ m: p.m, n: p.n });
    copyRewards.run({ m: p.m, n: p.n });
  }
})();
const total = db.prepare('SELECT count(*) FROM episodes').pluck().get() as number;
store.close();
if (total !== N && N >= per) throw new Error(`seeded ${total} episodes, wanted ${N}`);
process.stdout.write(`${JSON.stringify({ episodes: total, matches, seconds: Number(((performance.now() - t0) / 1000).toFixed(1)) })}\n`);
