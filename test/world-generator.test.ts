/**
 * The pack's world generator (core/domain-pack/generate.ts interpreting domains/banking/world.json)
 * builds exactly the worlds `generateWorld` (core/world/backend.ts) builds: the same state, byte for
 * byte as JSON, and the seeded stream left at the same point, for every banking scenario of the
 * arena, held-out and robustness sets and for hundreds of seeds over every situation, card status
 * and scenario parameter. This is what lets the engine switch to the pack with banking's hashes
 * unchanged. The telecom pack's generator builds a world for each of its scenarios.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SITUATIONS } from '../core/domain/types';
import type { Scenario, ScenarioAccount } from '../core/domain/types';
import { generatePackWorld, isoDaysBefore, spokenDate, worldStateProblems } from '../core/domain-pack/generate';
import type { DomainPack } from '../core/domain-pack/schema';
import { Rng, deriveSeed } from '../core/random';
import { generateWorld } from '../core/world/backend';
import { bankingDomain } from '../host/domain-files';
import { DOMAINS_DIR, loadPack } from '../host/domain-pack/read';
import { templatePackFiles } from '../host/domain-pack/template';
import { validatePack } from '../core/domain-pack/validate';

const banking = loadPack(path.join(DOMAINS_DIR, 'banking'));

/** Both generators on one seed: the states as JSON, and the next draw of each stream after. */
function both(pack: DomainPack, s: Pick<Scenario, 'account' | 'persona'>, seed: number) {
  const a = new Rng(seed);
  const b = new Rng(seed);
  const code = JSON.stringify(generateWorld(s as Scenario, a));
  const data = JSON.stringify(generatePackWorld(pack, { setup: { ...s.account }, persona: s.persona }, b));
  return { code, data, nextCode: a.int(0, 0x7fffffff), nextData: b.int(0, 0x7fffffff) };
}

function expectSame(pack: DomainPack, s: Pick<Scenario, 'account' | 'persona'>, seed: number, label: string) {
  const r = both(pack, s, seed);
  expect(r.data, `${label} seed ${seed}`).toBe(r.code);
  expect(r.nextData, `${label} seed ${seed}: the stream's next draw`).toBe(r.nextCode);
}

describe("banking's world generator as data", () => {
  it("equals generateWorld for every scenario of every set, from the pack's own scenario files", () => {
    const byId = new Map(bankingDomain().scenarios.map((s) => [s.id, s]));
    let n = 0;
    for (const file of banking.scenarios) {
      for (const ps of file.scenarios) {
        const s = byId.get(ps.id)!;
        expect(ps.setup).toEqual(s.account);
        for (const seed of [1, 2, 3, 7, 42, 1234]) {
          const a = new Rng(seed);
          const b = new Rng(seed);
          const code = JSON.stringify(generateWorld(s, a.fork('world')));
          const data = JSON.stringify(generatePackWorld(banking, { setup: ps.setup, persona: ps.persona }, b.fork('world')));
          expect(data, `${file.set}/${ps.id} seed ${seed}`).toBe(code);
          expect(worldStateProblems(banking.world, JSON.parse(data) as Record<string, unknown>)).toEqual([]);
          expectSame(banking, s, seed, `${file.set}/${ps.id}`);
          n++;
        }
      }
    }
    expect(n).toBe(6 * bankingDomain().scenarios.length);
    expect(new Set(banking.scenarios.map((f) => f.set))).toEqual(new Set(['arena', 'heldout', 'robustness']));
  });

  it('equals generateWorld over hundreds of seeds, every situation, card status and parameter', () => {
    const statuses = [undefined, 'active', 'blocked', 'frozen', 'expired'] as const;
    let n = 0;
    for (let seed = 0; seed < 400; seed++) {
      const r = new Rng(deriveSeed(99, 'spec', seed));
      const account: ScenarioAccount = { situation: SITUATIONS[seed % SITUATIONS.length]! };
      const cardStatus = statuses[Math.floor(seed / SITUATIONS.length) % statuses.length];
      if (cardStatus) account.cardStatus = cardStatus;
      if (r.chance(0.3)) account.merchant = r.pick(['Shell', 'Netflix', 'PAYPAL *XKQ ONLINE', 'Corner Bakery']);
      if (r.chance(0.3)) account.amount = r.int(100, 99_999) / 100;
      if (r.chance(0.3)) account.daysAgo = r.int(0, 40);
      const persona = r.chance(0.3) ? { name: 'Dana Whitfield', style: 'terse', sampleMessages: ['hi'] } : undefined;
      expectSame(banking, { account, persona }, deriveSeed(7, seed), JSON.stringify(account));
      n++;
    }
    expect(n).toBe(400);
  });

  it('the interpreter is what makes them equal: a changed range, draw order or fallback rule is caught', () => {
    const s = bankingDomain().scenarios.find((x) => x.account.situation === 'duplicate_charge')!;
    const persona = { name: 'Dana Whitfield', style: 'terse', sampleMessages: ['hi'] };
    const edit = (f: (w: DomainPack['world']) => void): DomainPack => {
      const world = structuredClone(banking.world);
      f(world);
      return { ...banking, world };
    };
    const differs = (pack: DomainPack, spec: Pick<Scenario, 'account' | 'persona'>) =>
      [1, 2, 3].some((seed) => {
        const r = both(pack, spec, seed);
        return r.code !== r.data || r.nextCode !== r.nextData;
      });
    expect(differs(banking, { account: s.account, persona })).toBe(false);
    // A balance range one cent wider.
    expect(
      differs(
        edit((w) => void ((w.records.checking!.fields.balance as { max: number }).max += 0.01)),
        s,
      ),
    ).toBe(true);
    // The card's id drawn before its last four digits.
    expect(
      differs(
        edit((w) => {
          const { last4, card_id, ...rest } = w.records.card!.fields;
          w.records.card!.fields = { card_id: card_id!, last4: last4!, ...rest };
        }),
        s,
      ),
    ).toBe(true);
    // The fake name drawn only when there is no persona: faker's place then differs.
    expect(
      differs(
        edit((w) => void delete (w.records.customer!.fields.name as { drawAlways?: boolean }).drawAlways),
        { account: s.account, persona },
      ),
    ).toBe(true);
    // The duplicate keeping its original's id (no fresh draw).
    expect(
      differs(
        edit((w) => void delete (w.situations.find((x) => x.name === 'duplicate_charge')!.effects[1] as { fresh?: string[] }).fresh),
        s,
      ),
    ).toBe(true);
  });
});

describe("telecom's world generator", () => {
  it('builds a world for every telecom scenario, deterministic per seed, with what its scenario sets up', () => {
    const telecom = loadPack(path.join(DOMAINS_DIR, 'telecom'));
    for (const file of telecom.scenarios) {
      for (const s of file.scenarios) {
        const spec = { setup: s.setup, persona: s.persona };
        const w = generatePackWorld(telecom, spec, new Rng(5));
        expect(JSON.stringify(generatePackWorld(telecom, spec, new Rng(5))), s.id).toBe(JSON.stringify(w));
        expect(Object.keys(w), s.id).toEqual(Object.keys(telecom.world.state));
        expect(worldStateProblems(telecom.world, w), s.id).toEqual([]);
        if (s.persona) expect((w.customer as { name: string }).name).toBe(s.persona.name);
        // Every parameter the scenario sets up shows in the world (a number of days as its date, or as said).
        const leaves = new Set<unknown>();
        const walk = (v: unknown): void => void (v !== null && typeof v === 'object' ? Object.values(v).forEach(walk) : leaves.add(v));
        walk(w);
        for (const [k, v] of Object.entries(s.setup)) {
          if (k === 'situation') continue;
          const shown = k === 'daysAgo' ? [isoDaysBefore(telecom.manifest.today, Number(v)), spokenDate(telecom.manifest.today, Number(v))] : [v];
          expect(
            shown.some((x) => leaves.has(x)),
            `${s.id}: setup.${k} = ${JSON.stringify(v)} in ${JSON.stringify(w)}`,
          ).toBe(true);
        }
      }
    }
  });
});

describe("the template pack's world generator", () => {
  it('builds a well-formed world for every scenario of the pack `sparring domains new` writes', () => {
    const r = validatePack(templatePackFiles('demo'));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    for (const s of r.pack.scenarios.flatMap((f) => f.scenarios)) {
      const w = generatePackWorld(r.pack, { setup: s.setup, persona: s.persona }, new Rng(9));
      expect(worldStateProblems(r.pack.world, w), s.id).toEqual([]);
      expect((w.orders as unknown[]).length, s.id).toBe(1);
    }
  });
});

describe("validation of world.json's generator", () => {
  it('reports every planted generator mistake at once, each with its JSON path in world.json', () => {
    const files = templatePackFiles('planted');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- edits plant mistakes anywhere in the file
    const w = JSON.parse(files.get('world.json')!) as Record<string, any>;
    w.initial = [w.initial[1], w.initial[0], ...w.initial.slice(2)]; // the customer (a fake name) drawn before faker is seeded
    w.records.customer.fields.email.template = 'customer{1}@example.com'; // one part only: {0}
    w.records.order.fields.item.excluding = 'customer.colour'; // no such field
    w.records.customer.fields.customer_id = { kind: 'ref', ref: 'order.order_id' }; // the order is drawn after the customer
    w.initial[4].to = 'tickets'; // an order added to the list of tickets
    w.situations[0].effects[0].path = 'orders[0].colour'; // orders have no colour
    w.final = [{ op: 'sort', path: 'orders', by: 'weight', order: 'asc' }];
    w.setupParams.daysLate = { type: 'integer', minimum: 0 };
    w.records.order.fields.eta = { kind: 'ref', ref: 'setup.daysLate' }; // a number of days into a date field
    files.set('world.json', JSON.stringify(w));
    const r = validatePack(files);
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems.filter((p) => p.file === 'world.json');
    const at = (path: string) => problems.find((p) => p.path === path)?.expected;
    expect(at('records.customer.fields.name.fallback')).toMatch(/seed-faker step before the first faker draw/);
    expect(at('records.customer.fields.email.template')).toMatch(/holes \{0\}…\{0\}.*got \{1\}/);
    expect(at('records.order.fields.item.excluding')).toMatch(/a field record customer draws .*"customer.colour"/);
    expect(at('records.customer.fields.customer_id.ref')).toMatch(/a record a step draws before this point \("order"/);
    expect(at('initial[4].to')).toMatch(/a list of order \(record order's entity\), got a list of ticket/);
    expect(at('situations[0].effects[0].path')).toMatch(/a field of entity order .*got "colour"/);
    expect(at('final[0].by')).toMatch(/a field of entity order/);
    expect(at('records.order.fields.eta.format')).toMatch(/"days-ago" \(setup.daysLate is a number of days; order.eta is a date\)/);
    expect(problems).toHaveLength(8);
  });
});
