/**
 * `sparring play` end to end: the real bin, moves on stdin; a refused tool call is reported and
 * skipped; stdin ending mid-episode leaves a draft that --resume finishes and stores.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { agentLine } from './play';

const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-play-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sparring = (args: string[], input: string) => spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8' });

describe('agentLine', () => {
  it('reads /tool NAME {args}, /end [words] and plain speech', () => {
    expect(agentLine('/tool lookup_account {"phone": "+1 555"}')).toEqual({ kind: 'tool_call', tool: 'lookup_account', args: { phone: '+1 555' } });
    expect(agentLine('/tool transfer_to_human')).toEqual({ kind: 'tool_call', tool: 'transfer_to_human', args: {} });
    expect(agentLine('/end Goodbye')).toEqual({ kind: 'end_call', text: 'Goodbye' });
    expect(agentLine('How can I help?')).toEqual({ kind: 'speak', text: 'How can I help?' });
    expect(() => agentLine('/tool get_transactions {account_id: 1}')).toThrow(/\/tool get_transactions: the arguments are not valid JSON/);
    expect(() => agentLine('/tool get_transactions [1]')).toThrow(/must be a JSON object/);
  });
});

describe('sparring play', () => {
  it('plays the agent seat from stdin; a bad tool call is refused; an unfinished session resumes', () => {
    const db = path.join(tmp, 'lab.db');
    const first = sparring(
      ['play', '--seat', 'agent', '--player', 'Bo', '--db', db, '--seed', '4'],
      '/tool get_transactions {"account_id": "x", "limit": 9}\nLet me look into that for you.\n',
    );
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/refused: get_transactions: Limit must be at most 5\./);
    const session = /--resume (P-\w+)/.exec(first.stderr)?.[1];
    expect(session, first.stderr).toBeDefined();
    expect(first.stdout).toMatch(/^agent: Let me look into that for you\.$/m);

    const second = sparring(['play', '--resume', session!, '--db', db, '--json'], '/end Goodbye\n');
    expect(second.status, second.stderr).toBe(0);
    const view = JSON.parse(second.stdout) as { status: string; episode: { id: string; turns: unknown[] } };
    expect(view.status).toBe('finished');
    const lab = new Database(db, { readonly: true });
    try {
      expect(lab.prepare('SELECT player, seat, opponent FROM human_episodes WHERE episode_id = ?').get(view.episode.id)).toEqual({
        player: 'Bo',
        seat: 'agent',
        opponent: 'scripted',
      });
      expect(lab.prepare('SELECT COUNT(*) FROM play_sessions').pluck().get()).toBe(0);
      expect(lab.prepare('SELECT COUNT(*) FROM turns WHERE episode_id = ?').pluck().get(view.episode.id)).toBe(view.episode.turns.length);
    } finally {
      lab.close();
    }
  });
});
