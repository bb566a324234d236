/**
 * Banking's tools run from the pack (domains/banking/tools.json `program`s, executed by
 * core/domain-pack/tool-program.ts) exactly as core/world/backend.ts runs them from code: for
 * seeded worlds of every shipped scenario and of every situation × card status, thousands of
 * calls with random and adversarial arguments (valid ones, wrong ids, wrong types, missing and
 * unknown fields, too many decimals, duplicates, unverified callers, unblocking a fraud hold and an
 * expired card, same-account transfers, insufficient funds, repeated disputes) go to both with the
 * same rng seed, and after every call the results and the world states are the same bytes.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkValue } from '../core/domain-pack/json-schema';
import { toolExecutor } from '../core/domain-pack/tool-program';
import type { ToolExecutor } from '../core/domain-pack/tool-program';
import type { ProgramStep, ToolsFile } from '../core/domain-pack/schema';
import { validatePack } from '../core/domain-pack/validate';
import { SITUATIONS } from '../core/domain/types';
import type { Scenario } from '../core/domain/types';
import { Rng } from '../core/random';
import { executeTool, generateWorld } from '../core/world/backend';
import type { WorldState } from '../core/world/backend';
import { bankingDomain } from '../host/domain-files';
import { DOMAINS_DIR, loadPack, readPackTexts } from '../host/domain-pack/read';
import { templatePackFiles } from '../host/domain-pack/template';

const banking = loadPack(path.join(DOMAINS_DIR, 'banking'));
/** Seeded worlds (every scenario and variant about 3 times) and calls on each: 5,280 calls. */
const WORLDS = 264;
const CALLS = 20;

/** Every shipped scenario, and one of each situation × starting card status. */
function scenarios(): Scenario[] {
  const shipped = bankingDomain().scenarios;
  const base = shipped[0]!;
  const variants: Scenario[] = [];
  for (const situation of SITUATIONS)
    for (const cardStatus of [undefined, 'blocked', 'expired', 'frozen'] as const)
      variants.push({
        ...base,
        id: `${situation}-${cardStatus ?? 'default'}`,
        persona: undefined,
        account: { situation, ...(cardStatus ? { cardStatus } : {}) },
      });
  return [...shipped, ...variants];
}

const TOOLS = ['lookup_account', 'get_transactions', 'dispute_charge', 'check_card_status', 'transfer_funds', 'transfer_to_human'];

/** A random call on world `w`: mostly well-formed against its real records, often not. */
function randomCall(w: WorldState, g: Rng): { tool: string; args: Record<string, unknown> } {
  const pick = <T>(xs: readonly T[]): T => xs[g.int(0, xs.length - 1)]!;
  const txns = w.accounts.flatMap((a) => a.transactions);
  const disputed = w.disputes.map((d) => d.transaction_id);
  const junk = [5, null, true, [], {}, '', 'x'];
  const accountId = () => (g.chance(0.8) ? pick(w.accounts).account_id : pick(['acc_missing', '', 7, null, w.cards[0]!.card_id]));
  const amount = () =>
    g.chance(0.5)
      ? pick([w.facts.amount, ...(txns.length ? [pick(txns).amount] : []), pick(w.accounts).balance, pick(w.accounts).balance + 0.01])
      : pick([10, 0.01, 0, -5, 12.345, 0.1 + 0.2, 1e7, 1_000_000, 999_999.99, '10', 1e-9, 2.5, 100.005]);
  const phone = w.customer.phone;
  const tool = g.chance(0.03) ? pick(['delete_account', 'toString', '__proto__', 'constructor', '']) : pick(TOOLS);
  let args: Record<string, unknown>;
  switch (tool) {
    case 'lookup_account':
      args = { phone: pick([phone, phone.replace(/\D/g, ''), phone.replace(/ /g, '-'), '+1 555 000 0000', '', 5551234, null]) };
      break;
    case 'get_transactions':
      args = { account_id: accountId(), ...(g.chance(0.5) ? { limit: pick([1, 2, 3, 5, 0, 6, 2.5, '3', null]) } : {}) };
      break;
    case 'dispute_charge': {
      const t = txns.length ? pick(txns) : undefined;
      args = { account_id: g.chance(0.85) ? w.accounts[0]!.account_id : accountId() };
      const how = g.int(0, 4);
      if (how === 0 || how === 4)
        args.transaction_id = g.chance(0.8) && t ? (g.chance(0.2) && disputed.length ? pick(disputed) : t.transaction_id) : pick(['txn_missing', ...junk]);
      if (how === 1 || how === 3 || how === 4) {
        const m = t?.merchant ?? w.facts.merchant;
        args.merchant = pick([m, m.toLowerCase(), m.slice(0, 4), `${m} purchase`, m.replace(/[^A-Za-z]/g, ' '), 'Nowhere Shop', '!!!', '', 5]);
      }
      if (how === 2 || how === 3 || (how === 4 && g.chance(0.5))) args.amount = g.chance(0.6) && t ? t.amount : amount();
      args.reason = pick(['unrecognized', 'duplicate', 'duplicate', 'refund_missing', 'not_received', 'other', 'fraud', 3]);
      break;
    }
    case 'check_card_status':
      args = { card_id: g.chance(0.85) ? w.cards[0]!.card_id : pick(['card_missing', '', 4, w.accounts[0]!.account_id]) };
      if (g.chance(0.6)) args.unblock = pick([true, true, false, 'yes', null]);
      break;
    case 'transfer_funds': {
      const from = accountId();
      args = { from_account_id: from, to_account_id: g.chance(0.2) ? from : accountId(), amount: amount() };
      break;
    }
    default:
      args = g.chance(0.1)
        ? {}
        : {
            reason: pick(['fraud', 'card stolen', '', 9]),
            ...(g.chance(0.7) ? { department: pick(['fraud', 'cards', 'accounts', 'general', 'loans', null]) } : {}),
          };
  }
  // Missing fields, unknown fields, not an object at all.
  for (const k of Object.keys(args)) if (g.chance(0.06)) delete args[k];
  if (g.chance(0.04)) args.extra = 1;
  if (g.chance(0.01)) return { tool, args: pick([null, [], 'phone']) as unknown as Record<string, unknown> };
  return { tool, args };
}

interface Tally {
  calls: number;
  outcomes: Map<string, number>;
  messages: Set<string>;
}

/** Run `calls` random calls per world through both executors; the first difference fails with the call. */
function compare(exec: ToolExecutor, worlds: number, calls: number): Tally {
  const tally: Tally = { calls: 0, outcomes: new Map(), messages: new Set() };
  const list = scenarios();
  for (let i = 0; i < worlds; i++) {
    const scenario = list[i % list.length]!;
    const seed = 1000 + i;
    const code = generateWorld(scenario, new Rng(seed).fork('world'));
    const data = structuredClone(code) as unknown as Record<string, unknown>;
    // The same tool stream on both sides; a program that draws ids differently shifts every later id.
    const rngCode = new Rng(seed).fork('tools');
    const rngPack = new Rng(seed).fork('tools');
    const g = new Rng(seed).fork('calls');
    const verifyAt = g.int(0, 6);
    for (let c = 0; c < calls; c++) {
      const call = c === verifyAt ? { tool: 'lookup_account', args: { phone: code.customer.phone } } : randomCall(code, g);
      const before = JSON.stringify(call.args);
      const a = executeTool(code, call.tool, call.args, rngCode);
      const b = exec.execute(data, call.tool, JSON.parse(before ?? 'null') as Record<string, unknown>, rngPack);
      // expect() only on a difference: thousands of passing expects cost more than the calls.
      const where = () => `world ${i} (${scenario.id}, seed ${seed}) call ${c}: ${call.tool} ${before}`;
      const [ra, rb] = [JSON.stringify(a), JSON.stringify(b)];
      if (ra !== rb) expect(rb, `result, ${where()}`).toBe(ra);
      const [sa, sb] = [JSON.stringify(code), JSON.stringify(data)];
      if (sa !== sb) expect(sb, `world state after ${where()}`).toBe(sa);
      tally.calls++;
      const key = `${call.tool} ${a.ok ? 'ok' : a.error.code}${call.tool === 'check_card_status' && a.ok ? ` unblocked=${String(a.data.unblocked)}` : ''}`;
      tally.outcomes.set(key, (tally.outcomes.get(key) ?? 0) + 1);
      if (!a.ok) tally.messages.add(a.error.message);
    }
  }
  return tally;
}

describe("banking's tool programs", () => {
  it('give the same results and world states as core/world/backend.ts, call for call', () => {
    const exec = toolExecutor(banking.tools, { stateNames: new Set(Object.keys(banking.world.state)) });
    const t = compare(exec, WORLDS, CALLS);
    // The calls reached every behaviour the equivalence is about, not just the happy path.
    const want = [
      'UNKNOWN_TOOL',
      'lookup_account ok',
      'lookup_account NOT_FOUND',
      'lookup_account INVALID_ARGUMENTS',
      'get_transactions ok',
      'get_transactions NOT_FOUND',
      'get_transactions NOT_VERIFIED',
      'get_transactions INVALID_ARGUMENTS',
      'dispute_charge ok',
      'dispute_charge NOT_FOUND',
      'dispute_charge AMBIGUOUS',
      'dispute_charge NOT_ALLOWED',
      'dispute_charge INVALID_ARGUMENTS',
      'dispute_charge NOT_VERIFIED',
      'check_card_status ok unblocked=true',
      'check_card_status ok unblocked=false',
      'check_card_status NOT_FOUND',
      'transfer_funds ok',
      'transfer_funds NOT_ALLOWED',
      'transfer_funds NOT_FOUND',
      'transfer_funds INSUFFICIENT_FUNDS',
      'transfer_funds INVALID_ARGUMENTS',
      'transfer_to_human ok',
      'transfer_to_human INVALID_ARGUMENTS',
    ];
    const seen = [...t.outcomes.keys()].map((k) => (k.endsWith('UNKNOWN_TOOL') ? 'UNKNOWN_TOOL' : k));
    for (const w of want) expect(seen, `no call ended in ${w}`).toContain(w);
    for (const m of [
      'identify the charge: transaction_id, or merchant and/or amount',
      'amount: at most 2 decimals',
      'amount: must be more than 0',
      'amount: must be at most 1,000,000',
      'amount: must be a number',
      'reason: must be one of "unrecognized", "duplicate", "refund_missing", "not_received", "other"',
      'limit: must be a whole number',
      '(arguments): has unknown field "extra"',
      'this charge is already disputed',
    ])
      expect([...t.messages], `no call was refused with "${m}"`).toContain(m);
    expect(t.messages.size).toBeGreaterThan(40);
    expect(t.calls).toBe(WORLDS * CALLS);
  });

  it('an expired card is never unblocked, a fraud hold is, in both', () => {
    const exec = toolExecutor(banking.tools);
    const base = bankingDomain().scenarios[0]!;
    for (const cardStatus of ['blocked', 'expired'] as const) {
      const s: Scenario = { ...base, account: { situation: 'card_declined', cardStatus } };
      const code = generateWorld(s, new Rng(7));
      const data = structuredClone(code) as unknown as Record<string, unknown>;
      for (const [tool, args] of [
        ['lookup_account', { phone: code.customer.phone }],
        ['check_card_status', { card_id: code.cards[0]!.card_id, unblock: true }],
      ] as const) {
        const a = executeTool(code, tool, args, new Rng(1));
        expect(exec.execute(data, tool, args, new Rng(1))).toEqual(a);
        if (tool === 'check_card_status') expect(a.ok && a.data.unblocked).toBe(cardStatus === 'blocked');
      }
      expect(data).toEqual(code);
    }
  });

  it('a changed program is caught: the comparison fails when one step differs from the code', () => {
    const broken: ToolsFile = structuredClone(banking.tools);
    const dispute = broken.tools.find((t) => t.name === 'dispute_charge')!;
    // Provisional credit up to 50 instead of 500: a quiet change of behaviour.
    dispute.parameters = { ...dispute.parameters, provisionalCreditMax: 50 };
    expect(() => compare(toolExecutor(broken), WORLDS, CALLS)).toThrow(/result, world \d+/);
    const transfer = broken.tools.find((t) => t.name === 'transfer_funds')!;
    const steps = transfer.program!;
    // Rounding dropped: the state drifts before any result does.
    const unrounded: ProgramStep[] = steps.map((s) => (s.op === 'set' && s.path === 'to.balance' ? { ...s, value: 'to.balance + args.amount + 0.001' } : s));
    expect(() =>
      compare(
        toolExecutor({ ...banking.tools, tools: banking.tools.tools.map((t) => (t.name === 'transfer_funds' ? { ...t, program: unrounded } : t)) }),
        WORLDS,
        CALLS,
      ),
    ).toThrow(/result|world state/);
  });
});

describe('tool programs in a pack are validated', () => {
  it('reports a broken program with the file, the JSON path and what was expected', () => {
    const texts = new Map(readPackTexts(path.join(DOMAINS_DIR, 'banking')));
    const tools = JSON.parse(texts.get('tools.json')!) as ToolsFile;
    const at = (name: string) => tools.tools.findIndex((t) => t.name === name);
    const program = (name: string) => tools.tools[at(name)]!.program!;
    program('get_transactions')[1] = { op: 'return', value: '{ account_id: a.acount_id, transactions: slice(a.transactions, 0, args.limt ?? 5) }' };
    program('transfer_funds')[0] = { op: 'fail', if: 'args.from_account_id == ', error: 'NOT_ALLOWED', message: 'same' };
    program('transfer_to_human')[1] = { op: 'let', name: 'ticket', value: "{ ticket_id: fresh('tkt'), wait: nobody }" };
    program('check_card_status')[0] = {
      op: 'find',
      name: 'c',
      in: 'state.cardz',
      where: 'c.card_id == args.card_id',
      error: 'GONE',
      message: 'no card {args.card_id',
    };
    program('lookup_account').push({ op: 'set', path: 'args.phone', value: "'x'" });
    texts.set('tools.json', JSON.stringify(tools));
    const r = validatePack(texts);
    expect(r.ok).toBe(false);
    const lines = r.ok ? [] : r.problems.map((p) => `${p.file}: ${p.path}: ${p.expected}`);
    const expectLine = (re: RegExp) =>
      expect(
        lines.some((l) => re.test(l)),
        `${String(re)} in\n${lines.join('\n')}`,
      ).toBe(true);
    const ti = (n: string) => `tools\\[${at(n)}\\]`;
    expectLine(new RegExp(`^tools\\.json: ${ti('get_transactions')}\\.program\\[1\\]\\.value: "args" has no field "limt"`));
    expectLine(new RegExp(`^tools\\.json: ${ti('transfer_funds')}\\.program\\[0\\]\\.if: an expression \\(the expression ended early at column 24\\)`));
    expectLine(new RegExp(`^tools\\.json: ${ti('transfer_to_human')}\\.program\\[1\\]\\.value: unknown function "fresh"`));
    expectLine(new RegExp(`^tools\\.json: ${ti('transfer_to_human')}\\.program\\[1\\]\\.value: unknown name "nobody"`));
    expectLine(new RegExp(`^tools\\.json: ${ti('check_card_status')}\\.program\\[0\\]\\.in: "state" has no field "cardz"`));
    expectLine(new RegExp(`^tools\\.json: ${ti('check_card_status')}\\.program\\[0\\]\\.error: an error listed in the tool's errors`));
    expectLine(new RegExp(`^tools\\.json: ${ti('check_card_status')}\\.program\\[0\\]\\.message: a message with \\{expression\\} holes`));
    expectLine(new RegExp(`^tools\\.json: ${ti('lookup_account')}\\.program\\[3\\]: no step after a return`));
    expectLine(new RegExp(`^tools\\.json: ${ti('lookup_account')}\\.program\\[3\\]\\.path: a field of the state`));
    expectLine(new RegExp(`^tools\\.json: ${ti('lookup_account')}\\.program\\[3\\]: a return as the last step`));
    // A step of an unknown kind is the schema's to refuse, at its path.
    (program('get_transactions') as unknown[])[0] = { op: 'delete', path: 'state' };
    texts.set('tools.json', JSON.stringify(tools));
    const r2 = validatePack(texts);
    expect(r2.ok ? [] : r2.problems.map((p) => `${p.file}: ${p.path}`)).toContain(`tools.json: tools[${at('get_transactions')}].program[0].op`);
  });
});

describe("telecom's tool programs", () => {
  const telecom = loadPack(path.join(DOMAINS_DIR, 'telecom'));
  /** A telecom world as world.json describes it (the generator from world.json is another step's): a duplicated add-on, a broadband outage, roaming off. */
  const world = () => ({
    customer: { customer_id: 'cus_a1', name: 'Dana Reyes', phone: '+1 555 321 7654', account_id: 'acct_b2' },
    lines: [
      { line_id: 'line_c3', number: '+1 555 321 7654', number_last4: '7654', plan: 'basic_5gb', sim_status: 'active', roaming: 'off', travel_pack: 'none' },
    ],
    broadband: [{ service_id: 'svc_d4', postcode: '97204', status: 'outage' }],
    outages: [{ outage_id: 'out_e5', area: '97204', service: 'broadband', status: 'active', eta_hours: 6 }],
    bills: [
      {
        bill_id: 'bill_f6',
        period: '2026-03',
        total: 0,
        due_date: '2026-03-16',
        charges: [
          { charge_id: 'chg_g7', description: 'Music Plus', amount: 7.99, date: '2026-03-10', kind: 'addon' },
          { charge_id: 'chg_h8', description: 'Music Plus', amount: 7.99, date: '2026-03-10', kind: 'addon' },
          { charge_id: 'chg_i9', description: 'Monthly plan', amount: 15, date: '2026-03-04', kind: 'plan' },
        ],
      },
    ],
    devices: [{ line_id: 'line_c3', model: 'Pixel 8', network_lock: 'unlocked', blocklisted: false }],
    ports: [{ line_id: 'line_c3', port_status: 'none', donor: null, code: null }],
    disputes: [],
    plan_changes: [],
    tickets: [],
    facts: {
      addon: 'Music Plus',
      amount: 7.99,
      datePhrase: 'last Tuesday',
      postcode: '97204',
      plan: 'Basic 5GB',
      country: 'Japan',
      device: 'Pixel 8',
      numberLast4: '7654',
    },
    verified: false,
  });

  it('validate, and run a conversation’s calls with the errors, results and state changes their texts promise', () => {
    const texts = readPackTexts(path.join(DOMAINS_DIR, 'telecom'));
    const v = validatePack(texts);
    expect(v.ok ? [] : v.problems).toEqual([]);
    const exec = toolExecutor(telecom.tools, { stateNames: new Set(Object.keys(telecom.world.state)) });
    const tools = new Map(telecom.tools.tools.map((t) => [t.name, t]));
    const state = world() as Record<string, unknown> & ReturnType<typeof world>;
    const rng = new Rng(3);
    const call = (tool: string, args: Record<string, unknown>): Record<string, unknown> => {
      const r = exec.execute(state, tool, args, rng);
      if (r.ok) expect(checkValue(tools.get(tool)!.result, r.data), `${tool} result ${JSON.stringify(r.data)}`).toEqual([]);
      return r.ok ? { ok: true, ...r.data } : { ok: false, ...r.error };
    };
    expect(call('get_bill', { account_id: 'acct_b2' })).toEqual({ ok: false, code: 'NOT_VERIFIED', message: 'verify the customer with lookup_customer first' });
    expect(call('lookup_customer', { phone: '555 000 0000' })).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(call('lookup_customer', { phone: '+15553217654' })).toMatchObject({
      ok: true,
      account_id: 'acct_b2',
      services: [{ service_id: 'svc_d4', type: 'broadband' }],
    });
    expect(state.verified).toBe(true);

    expect(call('check_outage', {})).toEqual({ ok: false, code: 'INVALID_ARGUMENTS', message: 'give the postcode or the service_id' });
    expect(call('check_outage', { service_id: 'svc_d4' })).toMatchObject({
      ok: true,
      area: '97204',
      service_status: 'outage',
      outages: [{ outage_id: 'out_e5', eta_hours: 6 }],
    });
    expect(call('check_outage', { postcode: '10001' })).toEqual({ ok: true, area: '10001', service_status: 'up', outages: [] });

    expect(call('get_bill', { account_id: 'acct_b2', period: 'March' })).toEqual({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: 'period: does not have the required form',
    });
    expect(call('get_bill', { account_id: 'acct_b2' })).toMatchObject({ ok: true, bill_id: 'bill_f6', total: 30.98 });
    expect(call('get_bill', { account_id: 'acct_b2', period: '2025-12' })).toEqual({ ok: false, code: 'NOT_FOUND', message: 'no bill for 2025-12' });

    expect(call('dispute_bill_charge', { account_id: 'acct_b2', description: 'music plus', reason: 'other' })).toEqual({
      ok: false,
      code: 'AMBIGUOUS',
      message: '2 charges match; give the charge_id',
    });
    const d = call('dispute_bill_charge', { account_id: 'acct_b2', description: 'music plus', reason: 'duplicate' });
    expect(d).toMatchObject({ ok: true, charge_id: 'chg_g7', credit_applied: true, status: 'filed' });
    expect(state.disputes).toEqual([{ dispute_id: d.dispute_id, charge_id: 'chg_g7', amount: 7.99, credit_applied: true }]);
    expect(call('dispute_bill_charge', { account_id: 'acct_b2', charge_id: 'chg_g7', reason: 'duplicate' })).toMatchObject({ ok: false, code: 'NOT_ALLOWED' });
    expect(call('dispute_bill_charge', { account_id: 'acct_b2', reason: 'other' })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });

    expect(call('change_plan', { line_id: 'line_c3', plan_code: 'gold' })).toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: expect.stringMatching(/^plan_code: must be one of/),
    });
    expect(call('change_plan', { line_id: 'line_c3', plan_code: 'basic_5gb' })).toEqual({
      ok: false,
      code: 'NOT_ALLOWED',
      message: 'the line is already on basic_5gb',
    });
    expect(call('change_plan', { line_id: 'line_c3', plan_code: 'plus_20gb' })).toMatchObject({
      ok: true,
      from_plan: 'basic_5gb',
      to_plan: 'plus_20gb',
      monthly_price: 30,
    });
    expect(state.lines[0]!.plan).toBe('plus_20gb');
    expect(state.plan_changes).toEqual([expect.objectContaining({ change_id: expect.stringMatching(/^chp_[0-9a-z]+$/), from_plan: 'basic_5gb' })]);

    expect(call('manage_roaming', { line_id: 'line_c3', travel_pack: 'day_pass' })).toMatchObject({ ok: false, code: 'NOT_ALLOWED' });
    expect(call('manage_roaming', { line_id: 'line_c3', enable: true, travel_pack: 'day_pass' })).toEqual({
      ok: true,
      line_id: 'line_c3',
      roaming: 'on',
      travel_pack: 'day_pass',
      daily_price: 5,
      changed: true,
    });
    expect(call('manage_roaming', { line_id: 'line_c3' })).toMatchObject({ ok: true, changed: false });

    expect(call('manage_sim', { line_id: 'line_c3', action: 'unblock_puk' })).toEqual({ ok: false, code: 'NOT_ALLOWED', message: 'the SIM is not PUK-locked' });
    expect(call('manage_sim', { line_id: 'line_c3', action: 'block' })).toMatchObject({ ok: true, sim_status: 'blocked', replacement_days: null });
    expect(call('manage_sim', { line_id: 'line_c3', action: 'reset_network' })).toMatchObject({ ok: false, code: 'NOT_ALLOWED' });
    expect(call('manage_sim', { line_id: 'line_c3', action: 'send_replacement' })).toMatchObject({ ok: true, sim_status: 'blocked', replacement_days: 2 });
    expect(call('manage_sim', { line_id: 'line_x', action: 'check' })).toEqual({ ok: false, code: 'NOT_FOUND', message: 'no line line_x' });

    expect(call('check_device', { line_id: 'line_c3', push_settings: true })).toMatchObject({ ok: true, model: 'Pixel 8', settings_pushed: true });
    const port = call('number_porting', { line_id: 'line_c3', action: 'issue_code' });
    expect(port).toMatchObject({ ok: true, port_status: 'none', code: expect.stringMatching(/^pac_/), code_valid_days: 30 });
    expect(call('number_porting', { line_id: 'line_c3', action: 'status' })).toMatchObject({ code: port.code });
    expect(call('transfer_to_human', { reason: 'wants to leave', department: 'retention' })).toMatchObject({
      ok: true,
      department: 'retention',
      wait_minutes: 3,
    });
    expect(call('transfer_to_human', { reason: 'help' })).toMatchObject({ ok: true, department: 'general', wait_minutes: 7 });
    expect(call('cancel_everything', {})).toEqual({ ok: false, code: 'UNKNOWN_TOOL', message: 'no tool named "cancel_everything"' });

    // The same seed draws the same ids.
    const again = world() as Record<string, unknown>;
    const r2 = new Rng(3);
    exec.execute(again, 'lookup_customer', { phone: '+1 555 321 7654' }, r2);
    exec.execute(again, 'change_plan', { line_id: 'line_c3', plan_code: 'plus_20gb' }, r2);
    const first = world() as Record<string, unknown>;
    const r1 = new Rng(3);
    exec.execute(first, 'lookup_customer', { phone: '+1 555 321 7654' }, r1);
    exec.execute(first, 'change_plan', { line_id: 'line_c3', plan_code: 'plus_20gb' }, r1);
    expect(again).toEqual(first);
  });
});

describe('the pack `sparring domains new` writes', () => {
  it('runs its tools from their programs', () => {
    const v = validatePack(templatePackFiles('demo'));
    if (!v.ok) throw new Error(v.problems.map((p) => `${p.file}: ${p.path}: ${p.expected}`).join('\n'));
    const exec = toolExecutor(v.pack.tools, { stateNames: new Set(Object.keys(v.pack.world.state)) });
    const state: Record<string, unknown> = {
      customer: { customer_id: 'cus_1', name: 'Ola Berg', email: 'customer123@example.com' },
      orders: [{ order_id: 'ord_1', item: 'desk lamp', status: 'delayed', eta: '2026-03-16' }],
      tickets: [],
      verified: false,
    };
    const rng = new Rng(1);
    expect(exec.execute(state, 'track_parcel', { order_id: 'ord_1' }, rng)).toMatchObject({ ok: false, error: { code: 'NOT_VERIFIED' } });
    expect(exec.execute(state, 'verify_customer', { email: 'Customer123@Example.com' }, rng)).toEqual({
      ok: true,
      tool: 'verify_customer',
      data: { customer_id: 'cus_1', name: 'Ola Berg', order_ids: ['ord_1'] },
    });
    expect(exec.execute(state, 'reschedule_delivery', { order_id: 'ord_1', date: '2026-03-20' }, rng)).toMatchObject({ ok: true, data: { eta: '2026-03-20' } });
    expect(exec.execute(state, 'track_parcel', { order_id: 'ord_1' }, rng)).toMatchObject({ ok: true, data: { status: 'delayed', eta: '2026-03-20' } });
    expect(exec.execute(state, 'reschedule_delivery', { order_id: 'ord_9', date: '2026-03-20' }, rng)).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'no order ord_9' },
    });
    expect(exec.execute(state, 'transfer_to_human', { reason: 'broken' }, rng)).toMatchObject({
      ok: true,
      data: { ticket_id: expect.stringMatching(/^tkt_/), wait_minutes: 5 },
    });
  });
});
