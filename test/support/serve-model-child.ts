/**
 * `serve-model` in a process of its own, for tests that watch it from outside (its memory, whether
 * it stays up): an untrained builtin DA checkpoint named DA0, on a free loopback port. Prints one
 * line `{baseUrl, token, pid}` and serves until SIGTERM.
 */
import { bankingDomain } from '../../host/domain-files';
import { serveModel } from '../../host/llm/serve-model';
import { BuiltinDa } from '../../models/builtin-da';
import { DaModel } from '../../models/da-model';

const domain = bankingDomain();
const model = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 1 });
const served = await serveModel({ da: new BuiltinDa(model, { name: 'DA0' }), modelId: 'DA0' });
process.stdout.write(`${JSON.stringify({ baseUrl: served.baseUrl, token: served.token, pid: process.pid })}\n`);
process.once('SIGTERM', () => {
  void served.close().then(() => model.dispose().then(() => process.exit(0)));
});
