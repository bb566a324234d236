import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ASSETS_DIR, bankingDomain, readDomainFiles } from '../../host/domain-files';
import { DomainFileError, loadDomain } from './schema';
import type { DomainFiles } from './schema';
import { ADVERSITY_KINDS, complexityOf, DOMAIN_TOOLS, SLOT_NAMES } from './types';
import type { DomainTool, TaxonomyEntry } from './types';

const BANKING_DIR = path.join(ASSETS_DIR, 'domains', 'banking');
const BANKING77_DIR = process.env.BANKING77_DIR;

/** The paper's core synthetic intents and the tool each routes to. */
const CORE_SYNTHETIC: Record<string, DomainTool> = {
  unrecognized_charge: 'dispute_charge',
  refund_not_showing_up: 'dispute_charge',
  duplicate_charge: 'dispute_charge',
  unknown_merchant: 'get_transactions',
  review_recent_activity: 'get_transactions',
  internal_transfer: 'transfer_funds',
  card_declined: 'check_card_status',
  fraud_compromised_account: 'transfer_to_human',
};

const domain = bankingDomain();
const byIntent = new Map<string, TaxonomyEntry>(domain.taxonomy.map((e) => [e.intent, e]));
const arena = domain.scenarios.filter((s) => s.set === 'arena');
const heldout = domain.scenarios.filter((s) => s.set === 'heldout');

/** Every text in the bank that is shown to the other side, with where it lives. */
function bankFragments(): { where: string; text: string }[] {
  const b = domain.bank;
  return [
    ...DOMAIN_TOOLS.flatMap((t) => b.decoys[t].map((text, i) => ({ where: `decoys.${t}[${i}]`, text }))),
    ...b.hedges.map((text, i) => ({ where: `hedges[${i}]`, text })),
    ...b.detailReplies.map((text, i) => ({ where: `detailReplies[${i}]`, text })),
    ...b.acknowledgements.map((text, i) => ({ where: `acknowledgements[${i}]`, text })),
    ...(['neutral', 'frustrated', 'anxious'] as const).flatMap((k) => b.tones[k].map((text, i) => ({ where: `tones.${k}[${i}]`, text }))),
  ];
}

describe('shipped banking domain: taxonomy', () => {
  it.skipIf(!BANKING77_DIR)('has exactly the Banking77 categories, spelled as in categories.json (needs BANKING77_DIR)', () => {
    const categories = JSON.parse(readFileSync(path.join(BANKING77_DIR!, 'categories.json'), 'utf8')) as string[];
    expect(categories).toHaveLength(77);
    const b77 = domain.taxonomy.filter((e) => e.source === 'banking77').map((e) => e.intent);
    expect([...b77].sort()).toEqual([...categories].sort());
  });

  it('has 77 Banking77 intents and the eight core synthetic ones with their tools', () => {
    expect(domain.taxonomy.filter((e) => e.source === 'banking77')).toHaveLength(77);
    const synthetic = domain.taxonomy.filter((e) => e.source === 'synthetic');
    expect(Object.fromEntries(synthetic.map((e) => [e.intent, e.tool]))).toEqual(CORE_SYNTHETIC);
    for (const e of synthetic) expect(e.core, e.intent).toBe(true);
    // Odd spellings of Banking77 are kept verbatim.
    expect(byIntent.has('Refund_not_showing_up')).toBe(true);
    expect(byIntent.has('reverted_card_payment?')).toBe(true);
  });

  it('routes every domain tool some intents, with transfer_to_human the largest bucket', () => {
    const counts = new Map<DomainTool, number>(DOMAIN_TOOLS.map((t) => [t, 0]));
    for (const e of domain.taxonomy) counts.set(e.tool, counts.get(e.tool)! + 1);
    for (const t of DOMAIN_TOOLS) expect(counts.get(t), t).toBeGreaterThan(0);
    const human = counts.get('transfer_to_human')!;
    for (const t of DOMAIN_TOOLS) if (t !== 'transfer_to_human') expect(human, t).toBeGreaterThan(counts.get(t)!);
    // RL-ADA Appendix A: about 38 of the Banking77 intents have no automated path.
    const humanB77 = domain.taxonomy.filter((e) => e.source === 'banking77' && e.tool === 'transfer_to_human').length;
    expect(humanB77).toBeGreaterThanOrEqual(34);
    expect(humanB77).toBeLessThanOrEqual(42);
  });

  it('gives each intent a rationale and 1-4 lowercase reveal phrases', () => {
    for (const e of domain.taxonomy) {
      expect(e.rationale.length, e.intent).toBeGreaterThan(10);
      expect(e.reveals.length, e.intent).toBeGreaterThanOrEqual(1);
      expect(e.reveals.length, e.intent).toBeLessThanOrEqual(4);
      for (const r of e.reveals) expect(r, e.intent).toBe(r.toLowerCase());
    }
  });
});

describe('shipped banking domain: utterance bank', () => {
  const perIntent = new Map<string, number>();
  for (const u of domain.bank.utterances) perIntent.set(u.intent, (perIntent.get(u.intent) ?? 0) + 1);

  it('has at least 20 utterances per core intent and 8 per other intent', () => {
    for (const e of domain.taxonomy) {
      expect(perIntent.get(e.intent) ?? 0, e.intent).toBeGreaterThanOrEqual(e.core ? 20 : 8);
    }
  });

  it('mixes direct, indirect and vague styles for every intent', () => {
    for (const e of domain.taxonomy) {
      const styles = new Set(domain.bank.utterances.filter((u) => u.intent === e.intent).map((u) => u.style));
      expect([...styles].sort(), e.intent).toEqual(['direct', 'indirect', 'vague']);
    }
  });

  it('has no repeated utterance', () => {
    const seen = new Set<string>();
    for (const u of domain.bank.utterances) {
      const key = u.text.toLowerCase();
      expect(seen.has(key), u.text).toBe(false);
      seen.add(key);
    }
  });

  it('uses only known {slots}, with no stray braces', () => {
    const known = new Set<string>(SLOT_NAMES);
    const all = [...domain.bank.utterances.map((u, i) => ({ where: `utterances[${i}]`, text: u.text })), ...bankFragments()];
    for (const { where, text } of all) {
      for (const m of text.matchAll(/\{([^{}]*)\}/g)) expect(known.has(m[1]!), `${where}: ${text}`).toBe(true);
      expect(text.replace(/\{[a-z_0-9]+\}/g, ''), `${where}: stray brace`).not.toMatch(/[{}]/);
    }
  });

  it('grounds most utterances of the core dispute and lookup intents in a merchant, amount or date', () => {
    for (const e of domain.taxonomy) {
      if (!e.core || (e.tool !== 'dispute_charge' && e.tool !== 'get_transactions')) continue;
      const texts = domain.bank.utterances.filter((u) => u.intent === e.intent).map((u) => u.text);
      const grounded = texts.filter((t) => /\{(merchant|amount|date)\}/.test(t)).length;
      expect(grounded / texts.length, e.intent).toBeGreaterThan(0.5);
    }
  });

  it("keeps indirect and vague utterances free of their own intent's reveal phrases", () => {
    const offenders = domain.bank.utterances
      .filter((u) => u.style !== 'direct')
      .flatMap((u) =>
        byIntent
          .get(u.intent)!
          .reveals.filter((r) => u.text.toLowerCase().includes(r))
          .map((r) => `"${u.text}" reveals "${r}"`),
      );
    expect(offenders).toEqual([]);
  });

  it('has decoys, hedges, detail replies, acknowledgements and tones that reveal no intent', () => {
    for (const t of DOMAIN_TOOLS) expect(domain.bank.decoys[t].length, t).toBeGreaterThanOrEqual(6);
    expect(domain.bank.hedges.length).toBeGreaterThanOrEqual(10);
    expect(domain.bank.detailReplies.length).toBeGreaterThanOrEqual(10);
    expect(domain.bank.acknowledgements.length).toBeGreaterThanOrEqual(10);
    expect(domain.bank.tones.frustrated.length).toBeGreaterThanOrEqual(6);
    expect(domain.bank.tones.anxious.length).toBeGreaterThanOrEqual(6);
    const offenders = bankFragments().flatMap(({ where, text }) =>
      domain.taxonomy.flatMap((e) => e.reveals.filter((r) => text.toLowerCase().includes(r)).map((r) => `${where} "${text}" reveals ${e.intent} ("${r}")`)),
    );
    expect(offenders).toEqual([]);
  });
});

describe('shipped banking domain: scenarios', () => {
  it('has 10 arena scenarios: 8 CA-winnable covering all five tools and 2 fraud references', () => {
    expect(arena).toHaveLength(10);
    const winnable = arena.filter((s) => !s.fraudReference);
    const fraud = arena.filter((s) => s.fraudReference);
    expect(winnable).toHaveLength(8);
    expect(fraud).toHaveLength(2);
    expect(new Set(winnable.map((s) => s.expectedTool))).toEqual(new Set(DOMAIN_TOOLS));
    for (const s of fraud) {
      expect(s.expectedTool, s.id).toBe('transfer_to_human');
      expect(s.account.situation, s.id).toBe('compromised');
    }
    expect(fraud.map((s) => s.id).sort()).toEqual(['fraud-compromised-account', 'fraud-compromised-card']);
  });

  it("marks the paper's contested arena scenarios ambiguous", () => {
    const ambiguous = arena.filter((s) => s.ambiguity === 'ambiguous').map((s) => s.id);
    expect(ambiguous.sort()).toEqual(['dispute-duplicate', 'internal-transfer', 'unknown-merchant']);
  });

  it('uses exactly the core intents in the arena', () => {
    const arenaIntents = new Set(arena.flatMap((s) => s.intents));
    const core = new Set(domain.taxonomy.filter((e) => e.core).map((e) => e.intent));
    expect(arenaIntents).toEqual(core);
  });

  it('has 12 held-out scenarios covering all five tools, with non-negotiable fraud and identity cases', () => {
    expect(heldout).toHaveLength(12);
    expect(new Set(heldout.map((s) => s.expectedTool))).toEqual(new Set(DOMAIN_TOOLS));
    const nonNegotiable = heldout.filter((s) => s.fraudReference);
    expect(nonNegotiable.some((s) => s.account.situation === 'compromised')).toBe(true);
    expect(nonNegotiable.some((s) => s.intents.some((i) => /identity/.test(i)))).toBe(true);
    for (const s of nonNegotiable) expect(s.expectedTool, s.id).toBe('transfer_to_human');
  });

  it('has unique ids, 1-3 intents each, all routing to the expected tool', () => {
    const ids = domain.scenarios.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of domain.scenarios) {
      expect(s.intents.length, s.id).toBeGreaterThanOrEqual(1);
      expect(s.intents.length, s.id).toBeLessThanOrEqual(3);
      for (const i of s.intents) expect(byIntent.get(i)?.tool, `${s.id}: ${i}`).toBe(s.expectedTool);
    }
  });

  it('sets a card-declined account up with a blocked card', () => {
    for (const s of domain.scenarios.filter((x) => x.account.situation === 'card_declined')) {
      expect(s.account.cardStatus, s.id).toBe('blocked');
    }
  });
});

describe('loadDomain on bad input', () => {
  const shipped = readDomainFiles(BANKING_DIR, 'banking');
  const scenarioText = (name: string) => shipped.scenarios.find((f) => path.basename(f.file) === name)!.text;

  /** The shipped texts under short in-memory file names, so each test can break one of them. */
  function files(): DomainFiles {
    return {
      name: 'banking',
      taxonomy: { file: 'taxonomy.json', text: shipped.taxonomy.text },
      utterances: { file: 'utterances.json', text: shipped.utterances.text },
      scenarios: [
        { file: 'scenarios/arena.json', text: scenarioText('arena.json') },
        { file: 'scenarios/heldout.json', text: scenarioText('heldout.json') },
      ],
    };
  }

  /** Parse a file's JSON, let `edit` change it, and write it back. */
  function edit<T>(f: { text: string }, change: (json: T) => void): void {
    const json = JSON.parse(f.text) as T;
    change(json);
    f.text = JSON.stringify(json);
  }

  function errorOf(f: DomainFiles): DomainFileError {
    try {
      loadDomain(f);
    } catch (e) {
      expect(e).toBeInstanceOf(DomainFileError);
      return e as DomainFileError;
    }
    throw new Error('expected loadDomain to throw');
  }

  type TaxonomyJson = { intents: { intent: string; tool: string }[] };
  type UtterancesJson = { utterances: { intent: string; text: string }[]; decoys: Record<string, string[]> };
  type ScenariosJson = { scenarios: { id: string; intents: string[]; expectedTool: string }[] };

  it('loads the unbroken in-memory texts', () => {
    const d = loadDomain(files());
    expect(d.scenarios).toHaveLength(22);
  });

  it('names the file when the JSON does not parse', () => {
    const f = files();
    f.taxonomy.text = '{"version": 1, "intents": [';
    const err = errorOf(f);
    expect(err.file).toBe('taxonomy.json');
    expect(err.message).toMatch(/^taxonomy\.json: not valid JSON/);

    const g = files();
    g.scenarios[1]!.text = g.scenarios[1]!.text.replace(/\}\s*$/, '');
    expect(errorOf(g).message).toMatch(/^scenarios\/heldout\.json: not valid JSON/);
  });

  it('names the field path of a tool that does not exist', () => {
    const f = files();
    edit<TaxonomyJson>(f.taxonomy, (j) => {
      j.intents[3]!.tool = 'refund_customer';
    });
    const err = errorOf(f);
    expect(err.file).toBe('taxonomy.json');
    expect(err.where).toBe('intents[3].tool');
    expect(err.message).toContain('taxonomy.json: intents[3].tool:');

    const g = files();
    edit<ScenariosJson>(g.scenarios[0]!, (j) => {
      j.scenarios[2]!.expectedTool = 'lookup_account';
    });
    expect(errorOf(g).message).toContain('scenarios/arena.json: scenarios[2].expectedTool:');
  });

  it('explains a scenario intent that routes to another tool', () => {
    const f = files();
    edit<ScenariosJson>(f.scenarios[0]!, (j) => {
      const s = j.scenarios.find((x) => x.id === 'dispute-duplicate')!;
      s.intents = ['duplicate_charge', 'terminate_account'];
    });
    const err = errorOf(f);
    expect(err.file).toBe('scenarios/arena.json');
    expect(err.where).toMatch(/^scenarios\[\d+\]\.intents\[1\]$/);
    expect(err.message).toContain('intent "terminate_account" routes to transfer_to_human, but the scenario expects dispute_charge');
  });

  it('rejects a scenario or utterance intent missing from the taxonomy', () => {
    const f = files();
    edit<ScenariosJson>(f.scenarios[1]!, (j) => {
      j.scenarios[0]!.intents = ['charged_by_aliens'];
    });
    expect(errorOf(f).message).toContain('scenarios/heldout.json: scenarios[0].intents[0]: intent "charged_by_aliens" is not in the taxonomy');

    const g = files();
    edit<UtterancesJson>(g.utterances, (j) => {
      j.utterances[5]!.intent = 'charged_by_aliens';
    });
    expect(errorOf(g).where).toBe('utterances[5].intent');
  });

  it('rejects an unknown {slot} in an utterance or a decoy', () => {
    const f = files();
    edit<UtterancesJson>(f.utterances, (j) => {
      j.utterances[0]!.text = 'I was charged {foo} yesterday.';
    });
    const err = errorOf(f);
    expect(err.where).toBe('utterances[0].text');
    expect(err.message).toMatch(/unknown \{slot\}/);

    const g = files();
    edit<UtterancesJson>(g.utterances, (j) => {
      j.decoys.transfer_funds![0] = 'Move it to {foo} later.';
    });
    expect(errorOf(g).where).toBe('decoys.transfer_funds[0]');
  });

  it('rejects duplicate scenario ids across files and duplicate intents', () => {
    const f = files();
    edit<ScenariosJson>(f.scenarios[1]!, (j) => {
      j.scenarios[0]!.id = 'dispute-duplicate';
    });
    const err = errorOf(f);
    expect(err.file).toBe('scenarios/heldout.json');
    expect(err.where).toBe('scenarios[0].id');
    expect(err.message).toContain('duplicate scenario id "dispute-duplicate"');

    const g = files();
    let n = 0;
    edit<TaxonomyJson>(g.taxonomy, (j) => {
      j.intents.push({ ...j.intents[0]! });
      n = j.intents.length - 1;
    });
    const dup = errorOf(g);
    expect(dup.where).toBe(`intents[${n}].intent`);
    expect(dup.message).toContain('duplicate intent');
  });
});

describe('MADS scenario fields (robustness set)', () => {
  const shipped = readDomainFiles(BANKING_DIR, 'banking');
  const robustnessFile = shipped.scenarios.find((f) => path.basename(f.file) === 'robustness.json')!;
  const load = (change: (j: { scenarios: Record<string, unknown>[] }) => void) => {
    const json = JSON.parse(robustnessFile.text) as { scenarios: Record<string, unknown>[] };
    change(json);
    return () =>
      loadDomain({
        ...shipped,
        scenarios: [...shipped.scenarios.filter((f) => f !== robustnessFile), { file: 'robustness.json', text: JSON.stringify(json) }],
      });
  };

  it('ships normal, unhappy and impossible scenarios covering all eight adversities, outside the arena and held-out sets', () => {
    const robust = domain.scenarios.filter((s) => s.set === 'robustness');
    expect(new Set(robust.map((s) => complexityOf(s)))).toEqual(new Set(['normal', 'unhappy', 'impossible']));
    expect(new Set(robust.flatMap((s) => (s.adversities ?? []).map((a) => a.kind)))).toEqual(new Set(ADVERSITY_KINDS));
    expect(robust.every((s) => !s.fraudReference)).toBe(true);
    expect(robust.some((s) => s.referenceActions?.length)).toBe(true);
    // The RL-ADA sets keep their meaning: no MADS fields there.
    expect([...arena, ...heldout].every((s) => complexityOf(s) === 'normal' && s.adversities === undefined)).toBe(true);
  });

  it('names the field of a bad adversity, complexity or goal revision', () => {
    expect(load((j) => (j.scenarios[3]!.adversities = [{ kind: 'backend_failure', rate: 0.5, turn: 2 }]))).toThrow(
      'robustness.json: scenarios[3].adversities[0].turn: give a rate or a turn, not both',
    );
    expect(load((j) => (j.scenarios[3]!.adversities = [{ kind: 'earthquake' }]))).toThrow(/robustness\.json: scenarios\[3\]\.adversities\[0\]\.kind/);
    expect(load((j) => (j.scenarios[0]!.complexity = 'impossible'))).toThrow(
      "scenarios[0].complexity: complexity 'impossible' and the impossible block go together",
    );
    expect(load((j) => (j.scenarios[4]!.adversities = [{ kind: 'goal_revision', from: 'charged_by_aliens', turn: 2 }]))).toThrow(
      'robustness.json: scenarios[4].adversities[0].from: intent "charged_by_aliens" is not in the taxonomy',
    );
    expect(load((j) => (j.scenarios[6]!.impossible = { fallback_behavior: 'shrug', reason: 'x' }))).toThrow(/scenarios\[6\]\.impossible\.fallback_behavior/);
  });
});
