/**
 * Choosing the builtin DA's SFT and network settings without touching any held-out slice (issue 20).
 *
 * A validation split carved from the training data only: for seed s,
 * - Banking77: the 80% that `banking77Split` trains on is split again by a seeded hash (key
 *   'validation'), 80% to train, 20% to validate;
 * - the bank: `bankSlices`' CA-only share of the train slice (never in any demonstration when
 *   `caOnlyShare` > 0) is the bank's validation set; the held-out slice is not read.
 * Each candidate is trained on the rest and scored on both validation sets; the TF-IDF baseline is
 * scored on the same sets beside it. `npx tsx host/routing-validation.ts '<json of SftDaOptions fields>' [seeds]`.
 * With `"bankOnly": true` in the JSON, Banking77 is left out of training (as in `eval --routing`
 * without BANKING77_DIR) and only the bank's validation set is scored. `"b77Share": f` trains on a
 * seeded share f of Banking77's training rows only (a learning curve: how a gap moves with data).
 */
import { bankingDomain } from './domain-files';
import { bankDemos, bankRoutingItems, bankSlices, hashSplit } from '../core/rl/demos';
import type { LogRegConfig } from '../core/rl/tfidf';
import type { RoutingItem } from '../core/rl/demos';
import { deriveSeed } from '../core/random';
import type { Domain } from '../core/domain/types';
import { DOMAIN_TOOLS } from '../core/domain/types';
import { routingObservation } from '../core/rl/demos';
import { argmaxOf, choiceIndex } from '../models/da-model';
import type { DaModel } from '../models/da-model';
import { banking77Split, routingAccuracy, tfidfRouting, trainSftDa } from './routing-eval';
import type { SftDaOptions } from './routing-eval';

/** Share of the bank's train slice kept out of training as its validation set. */
export const VALIDATION_BANK_SHARE = 0.2;
/** Share of Banking77's training 80% kept out as its validation set. */
export const VALIDATION_B77_SHARE = 0.2;

export interface ValidationSplit {
  b77Train: RoutingItem[];
  b77Val: RoutingItem[];
  bankVal: RoutingItem[];
}

/** The validation split of seed `seed` (see the module comment). */
export function validationSplit(domain: Domain, dir: string, seed: number): ValidationSplit {
  const { train } = banking77Split(domain, dir, seed);
  const inner = hashSplit(train, (r) => `${r.intent}\u0000${r.text}`, VALIDATION_B77_SHARE, deriveSeed(seed, 'validation'));
  const bank = bankSlices(domain.bank.utterances, seed, { caOnlyShare: VALIDATION_BANK_SHARE });
  return {
    b77Train: inner.train,
    b77Val: inner.heldout,
    bankVal: bankRoutingItems(domain, bank.caOnly, { fills: 1, seed: deriveSeed(seed, 'validation-fills') }),
  };
}

/** Tool-routing accuracy of other ways to combine the two heads: action head alone, intent mass alone, argmax intent, and log-linear mixes. */
async function headRules(model: DaModel, items: readonly RoutingItem[], trainTools: readonly string[] = []): Promise<Record<string, number>> {
  // Each tool's share of the training items, for a prior correction of the action head's tool logits.
  const logPrior = DOMAIN_TOOLS.map((t) => Math.log((trainTools.filter((x) => x === t).length + 1) / (trainTools.length + DOMAIN_TOOLS.length)));
  const preds = await model.predict(items.map((it) => routingObservation(it.text)));
  const tools = model.intents.map((x) => DOMAIN_TOOLS.indexOf(x.tool));
  const hits: Record<string, number> = {};
  const mixes = [0, 0.25, 0.5, 1, 2, 4];
  preds.forEach((p, i) => {
    const want = DOMAIN_TOOLS.indexOf(items[i]!.tool);
    const mass = DOMAIN_TOOLS.map(() => 0);
    p.intentProbs.forEach((q, j) => (mass[tools[j]!]! += q));
    const act = DOMAIN_TOOLS.map((t) => p.actionLogp[choiceIndex(t)]!);
    const top = tools[argmaxOf(p.intentProbs)]!;
    const add = (k: string, ok: boolean) => (hits[k] = (hits[k] ?? 0) + (ok ? 1 : 0));
    add('intentArgmax', top === want);
    for (const a of mixes) add(`action×mass^${a}`, argmaxOf(act.map((l, k) => l + a * Math.log(mass[k]! + 1e-6))) === want);
    add('massOnly', argmaxOf(mass) === want);
    for (const tau of [-0.3, -0.15, 0.15, 0.3, 0.5]) add(`action-prior^${tau}`, argmaxOf(act.map((l, k) => l - tau * logPrior[k]!)) === want);
  });
  return Object.fromEntries(Object.entries(hits).map(([k, v]) => [k, v / items.length]));
}

async function main(): Promise<void> {
  const dir = process.env.BANKING77_DIR;
  if (!dir) throw new Error('set BANKING77_DIR');
  const { bankOnly, b77Share, ...opts } = JSON.parse(process.argv[2] ?? '{}') as Omit<SftDaOptions, 'seed'> & {
    tfidf?: Partial<LogRegConfig> & { toolLabels?: boolean };
    bankOnly?: boolean;
    b77Share?: number;
  };
  const seeds = (process.argv[3] ?? '1').split(',').map(Number);
  const domain = bankingDomain();
  for (const seed of seeds) {
    const split = validationSplit(domain, dir, seed);
    if (b77Share !== undefined) {
      if (!(b77Share > 0 && b77Share <= 1)) throw new Error(`b77Share must be in (0, 1], got ${b77Share}`);
      split.b77Train = hashSplit(split.b77Train, (r) => `${r.intent}\u0000${r.text}`, 1 - b77Share, deriveSeed(seed, 'learning-curve')).train;
    }
    const v = bankOnly ? { ...split, b77Train: [], b77Val: [] } : split;
    if (opts.tfidf) {
      const t0 = Date.now();
      const { routingItems } = bankDemos(domain, { ...opts.bank, seed, caOnlyShare: VALIDATION_BANK_SHARE });
      const { toolLabels, ...logreg } = opts.tfidf;
      const r = tfidfRouting([...routingItems, ...v.b77Train], { b77Val: v.b77Val, bankVal: v.bankVal }, { toolLabels: toolLabels ?? false, logreg });
      process.stdout.write(JSON.stringify({ seed, opts, b77Train: v.b77Train.length, ...r, seconds: (Date.now() - t0) / 1000 }) + '\n');
      continue;
    }
    const t0 = Date.now();
    const trained = await trainSftDa(domain, {
      ...opts,
      seed,
      bank: { ...opts.bank, caOnlyShare: VALIDATION_BANK_SHARE },
      extraRouting: v.b77Train,
    });
    const b77 = await routingAccuracy(trained.model, v.b77Val);
    const bank = await routingAccuracy(trained.model, v.bankVal);
    const trainTools = trained.routingItems.map((r) => r.tool);
    const rules = { b77: await headRules(trained.model, v.b77Val, trainTools), bank: await headRules(trained.model, v.bankVal, trainTools) };
    await trained.model.dispose();
    process.stdout.write(
      JSON.stringify({
        seed,
        opts,
        b77Val: b77.accuracy,
        b77ToolOnly: b77.toolOnlyAccuracy,
        nB77: b77.n,
        b77Train: v.b77Train.length,
        bankVal: bank.accuracy,
        nBank: bank.n,
        rules,
        lastEpoch: trained.sft.epochs.at(-1)?.metrics,
        seconds: (Date.now() - t0) / 1000,
      }) + '\n',
    );
  }
}

if (process.argv[1]?.endsWith('routing-validation.ts')) await main();
