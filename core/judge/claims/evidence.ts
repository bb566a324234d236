/** What the transcript has established so far: the facts of successful tool results and the customer's words. */
import type { ToolResult } from '../../world/transcript';
import { findDates, NUMBER_RE, toCents } from './text';
import type { DateClaim } from './text';
import { looseTimesIn, relativeDates, timesIn } from './calendar';

type CardState = { current: string; seen: Set<string> };

export class Evidence {
  /** Every money value (a number under a key naming an amount or balance) of a successful result. */
  readonly money = new Set<number>();
  /** Balances only. */
  readonly balances = new Set<number>();
  /** Every number the customer said, in cents. */
  readonly customerNumbers = new Set<number>();
  /** Joined word n-grams (n ≤ 5) of successful-result strings and customer text, for name claims. */
  private readonly gramSet = new Set<string>();
  /** Lower-cased tokens of successful-result strings and customer text, for id claims. */
  private readonly tokenSet = new Set<string>();
  /** Texts not yet indexed into gramSet / tokenSet: indexing waits until a name or id needs checking. */
  private pending: string[] = [];
  readonly dates: DateClaim[] = [];
  readonly last4 = new Set<string>();
  readonly cards = new Map<string, CardState>();
  /** Successful results by tool, in order. */
  readonly ok = new Map<string, Record<string, unknown>[]>();
  customerLower = '';
  /** Times of day ("15:30") in result strings and the customer's words. */
  readonly times = new Set<string>();
  /** Each account's type and its balances in the order results gave them (the last is current). */
  readonly accounts = new Map<string, { type: string; balances: number[] }>();
  /** Facts that travel together: each transaction's (or disputed charge's) merchant, amount in cents and date. */
  readonly items: { merchant: string; cents: number | undefined; date: string | undefined }[] = [];

  addCustomer(text: string): void {
    this.customerLower += ` ${text.toLowerCase()}`;
    NUMBER_RE.lastIndex = 0;
    for (let m = NUMBER_RE.exec(text); m; m = NUMBER_RE.exec(text)) this.customerNumbers.add(toCents(Number(m[0].replace(/,/g, ''))));
    for (const n of wordNumbers(text)) this.customerNumbers.add(toCents(n));
    for (const d of findDates(text)) this.dates.push(d.date);
    this.dates.push(...relativeDates(text));
    for (const t of looseTimesIn(text)) this.times.add(t);
    this.addText(text);
    for (const m of text.matchAll(/\b\d{4}\b/g)) this.last4.add(m[0]);
  }

  private addText(text: string): void {
    this.pending.push(text);
  }

  private index(): void {
    for (const text of this.pending) this.indexText(text);
    this.pending = [];
  }

  get grams(): ReadonlySet<string> {
    if (this.pending.length) this.index();
    return this.gramSet;
  }

  get tokens(): ReadonlySet<string> {
    if (this.pending.length) this.index();
    return this.tokenSet;
  }

  private indexText(text: string): void {
    const toks = text
      .toLowerCase()
      .replace(/['’]s\b/g, 's')
      .split(/[^a-z0-9_]+/)
      .filter(Boolean);
    for (let i = 0; i < toks.length; i++) {
      this.tokenSet.add(toks[i]!);
      let g = '';
      for (let n = 0; n < 5 && i + n < toks.length; n++) {
        g += toks[i + n]!.replace(/_/g, '');
        this.gramSet.add(g);
      }
    }
  }

  addResult(r: ToolResult): void {
    if (!r.ok) return;
    const list = this.ok.get(r.tool);
    if (list) list.push(r.data);
    else this.ok.set(r.tool, [r.data]);
    this.walk(r.data, '', false, false);
    // Card statuses: lookup_account lists every card; check_card_status updates one.
    const setCard = (id: unknown, status: unknown) => {
      if (typeof id !== 'string' || typeof status !== 'string') return;
      const c = this.cards.get(id);
      if (c) {
        c.current = status;
        c.seen.add(status);
      } else this.cards.set(id, { current: status, seen: new Set([status]) });
    };
    if (Array.isArray(r.data.cards)) for (const c of r.data.cards as Record<string, unknown>[]) setCard(c?.card_id, c?.status);
    if (r.tool === 'check_card_status') setCard(r.data.card_id, r.data.status);
    this.addAccounts(r.data);
    const item = (t: Record<string, unknown> | undefined) => {
      if (t && typeof t.merchant === 'string') {
        this.items.push({
          merchant: t.merchant,
          cents: typeof t.amount === 'number' ? toCents(t.amount) : undefined,
          date: typeof t.date === 'string' ? t.date : undefined,
        });
      }
    };
    if (Array.isArray(r.data.transactions)) for (const t of r.data.transactions as Record<string, unknown>[]) item(t);
    else item(r.data);
  }

  /** Account balances: a list of accounts (`account_id`, `type`, `balance`) or a map of account id → new balance. */
  private addAccounts(data: Record<string, unknown>): void {
    const push = (id: unknown, balance: unknown, type?: unknown) => {
      if (typeof id !== 'string' || typeof balance !== 'number') return;
      const a = this.accounts.get(id) ?? { type: typeof type === 'string' ? type : '', balances: [] };
      if (typeof type === 'string') a.type = type;
      if (a.balances[a.balances.length - 1] !== toCents(balance)) a.balances.push(toCents(balance));
      this.accounts.set(id, a);
    };
    if (Array.isArray(data.accounts)) for (const a of data.accounts as Record<string, unknown>[]) push(a?.account_id, a?.balance, a?.type);
    if (typeof data.account_id === 'string' && typeof data.balance === 'number') push(data.account_id, data.balance, data.type);
    const b = data.balances;
    if (b && typeof b === 'object' && !Array.isArray(b)) for (const [id, v] of Object.entries(b)) push(id, v);
  }

  private walk(v: unknown, key: string, money: boolean, balance: boolean): void {
    if (typeof v === 'number') {
      if (money) this.money.add(toCents(v));
      if (balance) this.balances.add(toCents(v));
    } else if (typeof v === 'string') {
      this.addText(v);
      for (const t of timesIn(v)) this.times.add(t);
      if (/^\d{4}-\d{2}-\d{2}/.test(v)) this.dates.push({ y: +v.slice(0, 4), m: +v.slice(5, 7), d: +v.slice(8, 10) });
      if (key === 'last4') this.last4.add(v);
    } else if (Array.isArray(v)) {
      for (const x of v) this.walk(x, key, money, balance);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const isBal = balance || /balance/i.test(k);
        this.walk(x, k, money || isBal || /amount/i.test(k), isBal);
      }
    }
  }

  okData(tool: string): Record<string, unknown>[] {
    return this.ok.get(tool) ?? [];
  }

  /** Every transaction of every successful get_transactions result. */
  transactions(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const d of this.okData('get_transactions')) if (Array.isArray(d.transactions)) out.push(...(d.transactions as Record<string, unknown>[]));
    return out;
  }

  hasDate(c: DateClaim): boolean {
    const same = (e: DateClaim, m: number, d: number) => e.m === m && e.d === d && (c.y === undefined || e.y === undefined || c.y === e.y);
    return this.dates.some((e) => same(e, c.m, c.d) || (c.alt !== undefined && same(e, c.alt.m, c.alt.d)));
  }
}

const UNITS: Record<string, number> = {
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

/** Amounts a customer says in words or shorthand: "three thousand", "two hundred", "a grand", "5k". */
export function wordNumbers(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(
    /\b(a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\s+(hundred|thousand|grand)\b/gi,
  )) {
    out.push(UNITS[m[1]!.toLowerCase()]! * (m[2]!.toLowerCase() === 'hundred' ? 100 : 1000));
  }
  for (const m of text.matchAll(/\b(\d+(?:\.\d+)?)\s?k\b/gi)) out.push(Number(m[1]) * 1000);
  return out;
}
