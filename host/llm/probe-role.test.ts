/**
 * `probeRole`, the check `checkpoints add --model ENDPOINT` makes before an LLM joins a run: one
 * turn of the role as a run sends it. `serve-model` of a DA answers the DA's turn and refuses the
 * customer prompt; of a CA, the other way round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinCa } from '../../models/builtin-ca';
import { BuiltinDa } from '../../models/builtin-da';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { serveModel } from './serve-model';
import type { ServedModel } from './serve-model';
import { probeRole } from './test-endpoint';

const domain = bankingDomain();
let da: DaModel;
let ca: CaModel;
let servedDa: ServedModel;
let servedCa: ServedModel;

beforeAll(async () => {
  da = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 3 });
  ca = await CaModel.create(domain.taxonomy, { seed: 3 });
  servedDa = await serveModel({ da: new BuiltinDa(da, { name: 'DA0' }), modelId: 'da-x', token: null });
  servedCa = await serveModel({ ca: new BuiltinCa(ca, domain.bank, { name: 'CA0' }), modelId: 'ca-x', token: null });
}, 60_000);
afterAll(async () => {
  await servedDa.close();
  await servedCa.close();
  await da.dispose();
  await ca.dispose();
});

const endpoint = (baseUrl: string, model: string) => ({ name: model, baseUrl, model, apiKeyEnv: null, toolCalls: 'native' as const, maxConcurrency: 1 });

describe('probeRole', () => {
  it('answers with the model id when the endpoint plays the role, and rejects naming why when it cannot', async () => {
    expect(await probeRole(endpoint(servedDa.baseUrl, 'da-x'), 'DA', domain)).toBe('da-x');
    expect(await probeRole(endpoint(servedCa.baseUrl, 'ca-x'), 'CA', domain)).toBe('ca-x');
    await expect(probeRole(endpoint(servedCa.baseUrl, 'ca-x'), 'DA', domain)).rejects.toThrow(/400 .*not the customer prompt/);
    await expect(probeRole(endpoint(servedDa.baseUrl, 'da-x'), 'CA', domain)).rejects.toThrow(/400/);
  });
});
