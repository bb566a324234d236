import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBanking77Csv, readBanking77Csv } from './banking77';
import { bankingDomain } from './domain-files';

const known = new Set(['card_arrival', 'lost_or_stolen_card', 'reverted_card_payment?']);

describe('parseBanking77Csv', () => {
  it('imports rows, including quoted multi-line texts, with their starting line numbers', () => {
    const csv =
      'text,category\nWhere is my card?,card_arrival\n"I lost it,\nwhat now?",lost_or_stolen_card\n"Was my payment ""reverted""?",reverted_card_payment?\n';
    const r = parseBanking77Csv('x.csv', csv, known);
    expect(r.problems).toEqual([]);
    expect(r.rows).toEqual([
      { line: 2, text: 'Where is my card?', intent: 'card_arrival' },
      { line: 3, text: 'I lost it,\nwhat now?', intent: 'lost_or_stolen_card' },
      { line: 5, text: 'Was my payment "reverted"?', intent: 'reverted_card_payment?' },
    ]);
    expect(r.perIntent).toEqual({ card_arrival: 1, lost_or_stolen_card: 1, 'reverted_card_payment?': 1 });
  });

  it('reports unknown categories and malformed rows by line instead of dropping them', () => {
    const csv = 'text,category\nok,card_arrival\nsomething,made_up_intent\nno category\n ,card_arrival\na,b,c\n';
    const r = parseBanking77Csv('bad.csv', csv, known);
    expect(r.rows).toHaveLength(1);
    expect(r.problems).toEqual([
      { line: 3, problem: 'unknown category "made_up_intent"' },
      { line: 4, problem: 'expected 2 columns (text, category), found 1' },
      { line: 5, problem: 'empty text' },
      { line: 6, problem: 'expected 2 columns (text, category), found 3' },
    ]);
  });

  it('rejects a wrong header and unreadable files with the file name', () => {
    expect(() => parseBanking77Csv('h.csv', 'sentence,label\na,b\n', known)).toThrow(/h\.csv:1: expected the header "text,category"/);
    expect(() => parseBanking77Csv('e.csv', '', known)).toThrow(/e\.csv: empty file/);
    expect(() => parseBanking77Csv('q.csv', 'text,category\n"unclosed,card_arrival\n', known)).toThrow(/q\.csv.*not a readable CSV/);
    expect(() => readBanking77Csv('/nonexistent/train.csv', known)).toThrow(/\/nonexistent\/train\.csv: cannot read \(ENOENT\)/);
  });

  const dir = process.env.BANKING77_DIR;
  it.skipIf(!dir)('imports the whole Banking77 train split against the shipped taxonomy with no problems (needs BANKING77_DIR)', () => {
    const intents = new Set(bankingDomain().taxonomy.map((e) => e.intent));
    const r = readBanking77Csv(path.join(dir!, 'train.csv'), intents);
    expect(r.problems).toEqual([]);
    expect(r.rows.length).toBe(10003);
    expect(Object.keys(r.perIntent)).toHaveLength(77);
  });
});
