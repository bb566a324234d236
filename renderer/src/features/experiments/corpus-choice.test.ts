import { describe, expect, it } from 'vitest';
import { corpusLabel, corpusOf, withCorpus } from './corpus-choice';

const HASH = `sha256:${'ab'.repeat(32)}`;
const config = JSON.stringify({ arena: { episodesPerScenario: 2 }, bootstrap: { sft: { epochs: 6 }, daWarmup: { steps: 4 } } });

describe('corpus choice', () => {
  it('sets, reads and removes bootstrap.sft.corpus, keeping every other field', () => {
    const set = withCorpus(config, HASH);
    expect(corpusOf(set)).toBe(HASH);
    expect(JSON.parse(set)).toEqual({ arena: { episodesPerScenario: 2 }, bootstrap: { sft: { epochs: 6, corpus: HASH }, daWarmup: { steps: 4 } } });
    const removed = withCorpus(set, '');
    expect(corpusOf(removed)).toBe('');
    expect(JSON.parse(removed)).toEqual(JSON.parse(config));
  });

  it('leaves a text alone that is not JSON or has no bootstrap.sft block, and reads no corpus from it', () => {
    expect(withCorpus('{ not json', HASH)).toBe('{ not json');
    expect(corpusOf('{ not json')).toBe('');
    const bare = JSON.stringify({ arena: {} });
    expect(withCorpus(bare, HASH)).toBe(bare);
    expect(corpusOf(JSON.stringify({ bootstrap: { sft: { corpus: 3 } } }))).toBe('');
  });

  it('labels a corpus by source, import and rows', () => {
    expect(corpusLabel({ id: 1, source: 'banking77', rows: 10003 })).toBe('banking77 (import 1, 10,003 rows)');
  });
});
