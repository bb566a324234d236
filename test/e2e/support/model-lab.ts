/**
 * A lab holding one small builtin DA checkpoint, for models.spec.ts to serve with the real
 * `sparring serve-model` (test/e2e only): `node --import tsx model-lab.ts DB` makes a DA and
 * teaches it briefly by SFT (one expert episode per intent, two epochs: seconds, not the minutes
 * of `sft`), stores it as DA0 and prints one JSON line: {checkpoint, seconds}.
 */
import { bankDemos } from '../../../core/rl/demos';
import { runSft } from '../../../core/rl/sft';
import { bankingDomain } from '../../../host/domain-files';
import { checkpointStore } from '../../../host/store/checkpoint-store';
import { openSqliteStore } from '../../../host/store/sqlite-store';
import { DaModel } from '../../../models/da-model';

const [dbPath] = process.argv.slice(2);
if (!dbPath) throw new Error('usage: model-lab.ts DB');
const t0 = performance.now();
const domain = bankingDomain();
const model = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 2 });
await runSft(model, bankDemos(domain, { seed: 2, episodesPerIntent: 1, fills: 1, camouflaged: 0 }).demos, { epochs: 2, batchSize: 64, lr: 3e-3 });
const store = openSqliteStore(dbPath);
const saved = checkpointStore(store.db).save({ role: 'DA', name: 'DA0', source: 'sft', snapshot: await model.snapshot() });
store.close();
await model.dispose();
process.stdout.write(`${JSON.stringify({ checkpoint: saved.name, seconds: (performance.now() - t0) / 1000 })}\n`);
