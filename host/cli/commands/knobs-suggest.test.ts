/**
 * `sparring knobs suggest RUN --model NAME`: EAU's LLM meta-agent from the terminal, against a
 * loopback chat-completions server answering in vLLM's shape (no network). The answer becomes an
 * `llm` proposal beside the diagnostics' ones, pending until a person accepts it; bad input is
 * named.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../../core/presets';
import type { KnobProposal } from '../../../core/eau/proposal';
import { knobStore } from '../../store/knob-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { sparringInProcess } from '../../../test/support/cli-in-process';

const dir = mkdtempSync(join(tmpdir(), 'knobs-suggest-'));
const db = join(dir, 'lab.db');
const requests: { messages: { role: string; content: string }[] }[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    requests.push(JSON.parse(body) as (typeof requests)[number]);
    const content =
      '{"knob": "arena.maxDaTurns", "value": 6, "reason": "every episode deadlocks at one DA turn", "reasoning": "deadlockRate 1 at maxDaTurns 1"}';
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1764640007,
        model: 'qwen2.5-7b-instruct',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        usage: { prompt_tokens: 800, completion_tokens: 40, total_tokens: 840 },
      }),
    );
  });
});

const deadlock: KnobProposal = {
  knob: 'arena.maxDaTurns',
  value: 3,
  reason: "100.0% of match 1's episodes hit the turn limit of 1 DA turns without a domain tool call",
  source: { kind: 'diagnostic', name: 'deadlock' },
  evidence: { episodes: ['R1-M1:0'], series: [], figures: { deadlockRate: 1, maxDaTurns: 1 } },
  at: { matchIndex: 1 },
};

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const store = openSqliteStore(db);
  const config = { ...PRESETS.quick.config, arena: { ...PRESETS.quick.config.arena, maxDaTurns: 1 } };
  store.db
    .prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'running', 1, ?)")
    .run(JSON.stringify(config));
  knobStore(store.db).recordProposals('R1', [deadlock]);
  store.close();
  const port = (server.address() as AddressInfo).port;
  const add = await sparringInProcess([
    '--db',
    db,
    'models',
    'add',
    'meta',
    '--base-url',
    `http://127.0.0.1:${port}/v1`,
    '--model',
    'qwen',
    '--tool-calls',
    'text',
  ]);
  expect(add.code, add.stderr).toBe(0);
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sparring knobs suggest', () => {
  it("hands the latest evidence and the registry's knobs to the endpoint and records its write as a pending llm proposal", async () => {
    const r = await sparringInProcess(['--db', db, 'knobs', 'suggest', 'R1', '--model', 'meta']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^P2 arena\.maxDaTurns → 6 \(llm:meta\): every episode deadlocks at one DA turn/);
    expect(r.stdout).toContain('npx sparring knobs accept R1 P2');
    const user = requests[0]!.messages.find((m) => m.role === 'user')!.content;
    expect(user).toContain('"diagnostic":"deadlock"');
    // The registry's knobs with the run's current value and range.
    expect(user).toMatch(/"id":"arena\.maxDaTurns","value":1,"min":\d+,"max":\d+/);
    const list = await sparringInProcess(['--db', db, '--json', 'knobs', 'proposals', 'R1']);
    const proposals = JSON.parse(list.stdout) as { id: number; status: string; source: { kind: string } }[];
    expect(proposals.map((p) => [p.id, p.source.kind, p.status])).toEqual([
      [1, 'diagnostic', 'pending'],
      [2, 'llm', 'pending'],
    ]);
  });

  it('names an unknown endpoint and an unknown run, and records nothing', async () => {
    const noModel = await sparringInProcess(['--db', db, 'knobs', 'suggest', 'R1', '--model', 'nope']);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/--model nope: no LLM endpoint of that name/);
    const noRun = await sparringInProcess(['--db', db, 'knobs', 'suggest', 'R9', '--model', 'meta']);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toMatch(/R9/);
    const store = openSqliteStore(db);
    expect(knobStore(store.db).proposals('R1')).toHaveLength(2);
    store.close();
  });
});
