/** Imported corpora by content: the hash a run config names them by, and finding an import by id, source or hash. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusHash, corpusRowsByHash, findCorpusImport, hashedCorpusImports, saveCorpusImport } from './corpus-store';
import { openSqliteStore } from './sqlite-store';

const root = mkdtempSync(path.join(os.tmpdir(), 'sparring-corpus-'));
const lab = openSqliteStore(path.join(root, 'lab.sqlite'));
afterAll(() => lab.close());

const one = [{ line: 2, intent: 'card_arrival', text: 'Where is my card?' }];
const two = [...one, { line: 3, intent: 'pin_blocked', text: 'My PIN is blocked' }];

describe('corpus store', () => {
  it("hashes a corpus's intents and texts in order (SHA-256 of 'intent\\ttext\\n' per row, as python's hashlib gives it)", () => {
    expect(corpusHash(one)).toBe('sha256:befe735bc8a65a52d4a57aca913067238aa221b66c56ff8a46ea69f467452eb6');
    expect(corpusHash(two)).toBe('sha256:7e476450f9b483fabd3c4130055ceee76cfa2dccb445da33ce180d98cebfb6a2');
    // Line numbers are where a row sits in its file, not what it says.
    expect(corpusHash(two.map((r) => ({ ...r, line: r.line + 10 })))).toBe(corpusHash(two));
    expect(corpusHash([...two].reverse())).not.toBe(corpusHash(two));
  });

  it('finds an import by id, by source (the newest) and by the hash of its rows', () => {
    const a = saveCorpusImport(lab.db, 'banking77', '/a.csv', one, 0);
    const b = saveCorpusImport(lab.db, 'banking77', '/b.csv', two, 0);
    expect(hashedCorpusImports(lab.db).map((i) => [i.id, i.hash])).toEqual([
      [a, corpusHash(one)],
      [b, corpusHash(two)],
    ]);
    expect(findCorpusImport(lab.db, String(a))?.file).toBe('/a.csv');
    expect(findCorpusImport(lab.db, 'banking77')?.id).toBe(b);
    expect(findCorpusImport(lab.db, 'clinc150')).toBeUndefined();
    expect(findCorpusImport(lab.db, '99')).toBeUndefined();
    expect(corpusRowsByHash(lab.db, corpusHash(one))).toEqual(one);
    expect(corpusRowsByHash(lab.db, corpusHash(two))?.map((r) => r.text)).toEqual(['Where is my card?', 'My PIN is blocked']);
    expect(corpusRowsByHash(lab.db, `sha256:${'0'.repeat(64)}`)).toBeUndefined();
  });
});
