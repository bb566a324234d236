/**
 * Domain packs (docs/domain-packs.md): the committed banking pack is exactly what
 * scripts/export-banking-pack.ts builds from the code today, and agrees with the engine where the
 * exporter had to transcribe (argument schemas, result shapes, errors, generator ranges); packs
 * with planted mistakes are refused with the file and JSON path of each; `sparring domains new`
 * writes a pack `validate` accepts; the telecom pack validates with the counts the issue asks for.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import { checkValue } from '../core/domain-pack/json-schema';
import { validatePack } from '../core/domain-pack/validate';
import type { PackProblem } from '../core/domain-pack/validate';
import type { DomainPack, PackScenario } from '../core/domain-pack/schema';
import { Rng } from '../core/random';
import { executeTool, generateWorld, toolArgSchemas } from '../core/world/backend';
import { bankingDomain } from '../host/domain-files';
import { bankingPackFiles, packSchemaFiles } from '../host/domain-pack/banking-export';
import { DOMAINS_DIR, loadPack, readPackTexts } from '../host/domain-pack/read';
import { templatePackFiles } from '../host/domain-pack/template';
import { Command } from 'commander';
import { registerDomains } from '../host/cli/commands/domains';
import { UsageError } from '../host/cli/options';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-packs-'));
const banking = loadPack(path.join(DOMAINS_DIR, 'banking'));

describe('banking exported as a pack', () => {
  it('the committed domains/banking/ and domains/schema/ are exactly what the export script builds from the code', () => {
    const want = bankingPackFiles();
    const have = readPackTexts(path.join(DOMAINS_DIR, 'banking'));
    expect([...have.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [file, text] of want) expect(have.get(file), `domains/banking/${file} differs: run npx tsx scripts/export-banking-pack.ts`).toBe(text);
    const schemas = packSchemaFiles();
    expect(readdirSync(path.join(DOMAINS_DIR, 'schema')).sort()).toEqual([...schemas.keys()].sort());
    for (const [file, text] of schemas) expect(readFileSync(path.join(DOMAINS_DIR, 'schema', file), 'utf8'), `domains/schema/${file} differs`).toBe(text);
  });

  it('holds the taxonomy, the bank and every scenario of the shipped domain without loss', () => {
    const d = bankingDomain();
    expect(
      banking.intents.intents.map((i) => ({ intent: i.name, tool: i.goalTool, source: i.source, core: i.arena, rationale: i.rationale, reveals: i.reveals })),
    ).toEqual(d.taxonomy);
    expect(banking.utterances.utterances).toEqual(d.bank.utterances);
    // The bank file's own `version` is the old format's; the pack's manifest versions the pack.
    expect({ ...banking.utterances, $schema: undefined, utterances: undefined }).toEqual({ ...d.bank, version: undefined, utterances: undefined });
    const back = banking.scenarios.flatMap((f) =>
      f.scenarios.map(({ nonNegotiable, setup, ...rest }: PackScenario) => ({ ...rest, fraudReference: nonNegotiable, account: setup, set: f.set })),
    );
    const key = (s: object) => JSON.stringify(Object.fromEntries(Object.entries(s).sort(([a], [b]) => a.localeCompare(b))));
    expect(back.map(key).sort()).toEqual(d.scenarios.map(key).sort());
  });

  it("tool argument schemas accept and refuse what the backend's zod schemas do", () => {
    const samples: Record<string, unknown[]> = {
      lookup_account: [{ phone: '+1 555 123 4567' }, { phone: '' }, {}, { phone: 5 }, { phone: 'x', extra: 1 }],
      get_transactions: [
        { account_id: 'acc_1' },
        { account_id: 'acc_1', limit: 5 },
        { account_id: 'acc_1', limit: 6 },
        { account_id: 'acc_1', limit: 2.5 },
        { limit: 1 },
      ],
      dispute_charge: [
        { account_id: 'a', reason: 'duplicate' },
        { account_id: 'a', reason: 'fraud' },
        { account_id: 'a', amount: 12.345, reason: 'other' },
        { account_id: 'a', amount: 12.34, merchant: 'Shell', reason: 'other' },
        { account_id: 'a', amount: 0, reason: 'other' },
        { account_id: 'a', amount: 2_000_000, reason: 'other' },
      ],
      check_card_status: [{ card_id: 'c' }, { card_id: 'c', unblock: true }, { card_id: 'c', unblock: 'yes' }, { card_id: '' }],
      transfer_funds: [
        { from_account_id: 'a', to_account_id: 'b', amount: 10 },
        { from_account_id: 'a', to_account_id: 'b', amount: 0.001 },
        { from_account_id: 'a', to_account_id: 'b' },
      ],
      transfer_to_human: [{ reason: 'fraud' }, { reason: 'x', department: 'cards' }, { reason: 'x', department: 'loans' }, { reason: '' }],
    };
    for (const tool of banking.tools.tools) {
      const zod = toolArgSchemas[tool.name as keyof typeof toolArgSchemas] as z.ZodType;
      for (const args of samples[tool.name]!) {
        expect(checkValue(tool.arguments, args).length === 0, `${tool.name} ${JSON.stringify(args)}`).toBe(zod.safeParse(args).success);
      }
    }
  });

  it('every tool result and error of the backend fits what the pack declares, in every scenario', () => {
    const tools = new Map(banking.tools.tools.map((t) => [t.name, t]));
    const seenOk = new Set<string>();
    for (const s of bankingDomain().scenarios) {
      for (const seed of [1, 2, 3]) {
        const rng = new Rng(seed);
        const w = generateWorld(s, rng.fork('world'));
        const call = (tool: string, args: Record<string, unknown>) => {
          const r = executeTool(w, tool, args, rng.fork('tools', tool));
          const t = tools.get(tool)!;
          if (r.ok) {
            seenOk.add(tool);
            expect(checkValue(t.result, r.data), `${tool} result ${JSON.stringify(r.data)}`).toEqual([]);
          } else {
            const declared = [...t.errors.map((e) => e.code), ...t.preconditions.map((p) => p.error), 'INVALID_ARGUMENTS'];
            expect(declared, `${tool} error ${r.error.code}: ${r.error.message}`).toContain(r.error.code);
          }
          return r;
        };
        call('get_transactions', { account_id: 'acc_x' });
        const who = call('lookup_account', { phone: w.customer.phone });
        const checking = w.accounts[0]!.account_id;
        const savings = w.accounts[1]!.account_id;
        call('get_transactions', { account_id: checking });
        call('get_transactions', { account_id: 'acc_missing' });
        const t = w.accounts[0]!.transactions[0];
        if (t) call('dispute_charge', { account_id: checking, transaction_id: t.transaction_id, reason: 'unrecognized' });
        if (t) call('dispute_charge', { account_id: checking, transaction_id: t.transaction_id, reason: 'unrecognized' });
        call('dispute_charge', { account_id: checking, reason: 'other' });
        call('dispute_charge', { account_id: checking, amount: 0.01, reason: 'other' });
        call('check_card_status', { card_id: w.cards[0]!.card_id, unblock: true });
        call('check_card_status', { card_id: 'card_missing' });
        call('transfer_funds', { from_account_id: savings, to_account_id: checking, amount: 25 });
        call('transfer_funds', { from_account_id: checking, to_account_id: checking, amount: 25 });
        call('transfer_funds', { from_account_id: checking, to_account_id: savings, amount: 999_999 });
        call('transfer_to_human', { reason: 'fraud', department: 'fraud' });
        expect(who.ok).toBe(true);
      }
    }
    expect([...seenOk].sort()).toEqual([...tools.keys()].sort());
  });

  it("generated worlds stay inside the pack's pools and ranges", () => {
    const r = banking.world.records;
    const range = (g: unknown) => g as { min: number; max: number };
    for (const s of bankingDomain().scenarios) {
      for (const seed of [1, 2, 3, 4]) {
        const w = generateWorld(s, new Rng(seed).fork('world'));
        const [checking, savings] = w.accounts;
        expect(checking!.balance).toBeGreaterThanOrEqual(range(r.checking!.fields.balance).min);
        expect(checking!.balance).toBeLessThanOrEqual(range(r.checking!.fields.balance).max);
        expect(savings!.balance).toBeGreaterThanOrEqual(range(r.savings!.fields.balance).min);
        expect(savings!.balance).toBeLessThanOrEqual(range(r.savings!.fields.balance).max);
        expect(w.customer.phone).toMatch(/^\+1 555 \d{3} \d{4}$/);
        expect(Number(w.cards[0]!.last4)).toBeGreaterThanOrEqual(1000);
        const merchants = [...banking.world.pools.merchants!, ...banking.world.pools.odd_merchants!];
        for (const t of checking!.transactions) {
          if (s.account.merchant === undefined || t.merchant !== s.account.merchant) expect(merchants).toContain(t.merchant);
          expect(banking.world.pools.channels).toContain(t.channel);
        }
        const sortedDesc = [...checking!.transactions].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
        expect(checking!.transactions).toEqual(sortedDesc);
      }
    }
  });
});

/** Parsed JSON that a planted edit reaches into freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- edits plant mistakes anywhere in a file
type Loose = Record<string, any>;

/** The template pack's texts with `edit` applied to one parsed file. */
function planted(edits: Record<string, (v: Loose) => void>): Map<string, string> {
  const files = templatePackFiles('planted');
  for (const [file, edit] of Object.entries(edits)) {
    const v = JSON.parse(files.get(file)!) as Loose;
    edit(v);
    files.set(file, JSON.stringify(v, null, 2));
  }
  return files;
}

function problemsOf(files: Map<string, string>): PackProblem[] {
  const r = validatePack(files);
  expect(r.ok).toBe(false);
  return r.ok ? [] : r.problems;
}

describe('validation', () => {
  it('the template pack is valid as written', () => {
    expect(validatePack(templatePackFiles('demo'))).toMatchObject({ ok: true });
  });

  it('reports every planted mistake at once, each with its file and JSON path', () => {
    const problems = problemsOf(
      planted({
        'intents.json': (v) => {
          v.intents[0].goalTool = 'refund_order'; // no such tool
          v.intents[2].arena = 'yes'; // wrong type
        },
        'utterances.json': (v) => {
          v.utterances[3].text = 'My {colour} parcel is late.'; // no such slot
        },
        'world.json': (v) => {
          v.slots[0].source = 'order.weight'; // no such entity field
        },
        'scenarios/arena.json': (v) => {
          v.scenarios[1].intents = ['where_is_my_parcel']; // routes to track_parcel, the scenario expects reschedule_delivery
          v.scenarios[0].setup.situation = 'lost_in_space'; // no such situation
        },
        'judge.json': (v) => {
          v.claims.statuses[0].fields[0].status = 'state'; // not in track_parcel's result
        },
        'tools.json': (v) => {
          v.tools[1].preconditions[0].requires = 'logged_in'; // no such state flag
        },
      }),
    );
    const at = (file: string, pathPart: string) => problems.find((p) => p.file === file && p.path === pathPart);
    expect(at('intents.json', 'intents[2].arena')?.expected).toMatch(/boolean/);
    expect(at('utterances.json', 'utterances[3].text')?.expected).toMatch(/\{colour\}/);
    expect(at('world.json', 'slots[0].source')?.expected).toMatch(/a field of entity order .*"weight"/);
    expect(at('scenarios/arena.json', 'scenarios[0].setup.situation')?.expected).toMatch(/"lost_in_space"/);
    expect(at('judge.json', 'claims.statuses[0].fields[0]')?.expected).toMatch(/track_parcel's result schema, got "state"/);
    expect(at('tools.json', 'tools[1].preconditions[0].requires')?.expected).toMatch(/state flag/);
    // intents.json failed its schema, so nothing is cross-checked against it; with a schema-valid one it is:
    const second = problemsOf(
      planted({
        'intents.json': (v) => void (v.intents[0].goalTool = 'refund_order'),
        'scenarios/arena.json': (v) => void (v.scenarios[1].intents = ['where_is_my_parcel']),
      }),
    );
    const at2 = (file: string, pathPart: string) => second.find((p) => p.file === file && p.path === pathPart)?.expected;
    expect(at2('intents.json', 'intents[0].goalTool')).toMatch(/a goal tool of tools.json .*"refund_order"/);
    expect(at2('scenarios/arena.json', 'scenarios[1].intents[0]')).toMatch(/routes to reschedule_delivery .*routes to refund_order/);
  });

  it('refuses a missing file, broken JSON, too few utterances and an arena intent no arena scenario uses', () => {
    const files = templatePackFiles('broken');
    files.delete('customer.json');
    files.set('judge.json', '{ "idPrefixes": [');
    const u = JSON.parse(files.get('utterances.json')!) as { utterances: { intent: string; style: string }[] };
    u.utterances = u.utterances.filter((x, i) => !(x.intent === 'change_delivery_day' && x.style === 'vague') && i !== 0);
    files.set('utterances.json', JSON.stringify(u));
    const problems = problemsOf(files);
    expect(problems).toContainEqual({ file: 'customer.json', path: '', expected: 'the file is missing' });
    expect(problems.find((p) => p.file === 'judge.json')?.expected).toMatch(/^valid JSON/);
    expect(problems.map((p) => p.expected)).toEqual(
      expect.arrayContaining([
        'at least 20 utterances for arena intent "where_is_my_parcel", found 19',
        'utterances of every style for intent "change_delivery_day" (none vague)',
      ]),
    );
    const unused = problemsOf(planted({ 'scenarios/arena.json': (v) => void v.scenarios.pop() }));
    expect(unused).toContainEqual({ file: 'intents.json', path: 'intents[1].arena', expected: 'false, or an arena scenario that uses "change_delivery_day"' });
  });
});

/**
 * `sparring domains …` on a program holding only the domains command (the whole CLI's imports,
 * onnxruntime among them, cost seconds here; the command needs none of them).
 */
async function domains(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = new Command('sparring').option('--json', '', false).exitOverride();
  registerDomains(program, () => ({ db: '', seed: 1, json: program.opts<{ json: boolean }>().json }));
  const out: string[] = [];
  const err: string[] = [];
  const write = (into: string[]) => (chunk: string | Uint8Array) => (into.push(String(chunk)), true);
  const spyOut = vi.spyOn(process.stdout, 'write').mockImplementation(write(out));
  const spyErr = vi.spyOn(process.stderr, 'write').mockImplementation(write(err));
  process.exitCode = undefined;
  let code: number;
  try {
    await program.parseAsync(['node', 'sparring', ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.push(e.message);
    code = 2; // main.ts: a UsageError exits 2
  } finally {
    spyOut.mockRestore();
    spyErr.mockRestore();
    process.exitCode = undefined;
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('sparring domains', () => {
  it('new writes a pack that validate accepts; validate lists every problem of a broken one by file and JSON path', async () => {
    const dir = path.join(tmp, 'mine');
    const made = await domains(['domains', 'new', 'mine', '--dir', dir]);
    expect(made.code).toBe(0);
    const ok = await domains(['domains', 'validate', dir, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, name: 'mine', scenarios: { arena: 2, heldout: 1 } });
    const again = await domains(['domains', 'new', 'mine', '--dir', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/not empty; nothing was written/);

    const intents = path.join(dir, 'intents.json');
    writeFileSync(intents, readFileSync(intents, 'utf8').replace('"goalTool": "track_parcel"', '"goalTool": "track_order"'));
    const bad = await domains(['domains', 'validate', dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${path.join(path.relative(process.cwd(), dir), 'intents.json')}: intents[0].goalTool: a goal tool of tools.json`);
  });

  it('list shows every shipped pack, each valid', async () => {
    const r = await domains(['domains', 'list', '--json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { name: string; ok: boolean }[];
    expect(rows.map((x) => x.name)).toEqual(expect.arrayContaining(['banking', 'telecom']));
    expect(rows.filter((x) => !x.ok)).toEqual([]);
  });
});

describe('the telecom pack', () => {
  it('validates, verifies first, and has the counts the issue asks for', () => {
    const telecom: DomainPack = loadPack(path.join(DOMAINS_DIR, 'telecom'));
    const count = (set: string) => telecom.scenarios.find((s) => s.set === set)?.scenarios.length;
    expect([count('arena'), count('heldout'), count('robustness')]).toEqual([10, 12, 8]);
    expect(telecom.manifest.verification).not.toBeNull();
    const verifier = telecom.manifest.verification!.tool;
    for (const t of telecom.tools.tools.filter((x) => x.goal && x.name !== telecom.manifest.escalationTool)) {
      expect(
        t.preconditions.map((p) => p.requires),
        t.name,
      ).toContain(telecom.manifest.verification!.flag);
    }
    expect(telecom.tools.tools.find((t) => t.name === verifier)?.role).toBe('verification');
    for (const i of telecom.intents.intents) {
      const mine = telecom.utterances.utterances.filter((u) => u.intent === i.name);
      expect(mine.length, i.name).toBeGreaterThanOrEqual(i.arena ? 20 : 8);
      expect(new Set(mine.map((u) => u.style)).size, i.name).toBe(3);
      // As in banking's bank: only a direct utterance may name the intent outright (r_conceal's phrases).
      const leaks = mine.filter((u) => u.style !== 'direct' && i.reveals.some((r) => u.text.toLowerCase().includes(r.toLowerCase())));
      expect(leaks, i.name).toEqual([]);
    }
    expect(telecom.scenarios.flatMap((f) => f.scenarios).some((s) => s.nonNegotiable)).toBe(true);
  });
});
