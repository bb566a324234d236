/**
 * An LLM checkpoint (what an external trainer hands back, migration 21) as a policy SPEC: it plays
 * as its endpoint under the checkpoint's name (matches record the checkpoint), and is refused when
 * the lab's spec now names another model or is gone, or where builtin weights are needed.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LlmDa } from '../../models/llm/llm-da';
import { bankingDomain } from '../domain-files';
import { checkpointStore } from '../store/checkpoint-store';
import { llmStore } from '../store/llm-store';
import { openSqliteStore } from '../store/sqlite-store';
import { forgetEndpoints, loadDaModel, resolveDa } from './policies';

describe('an LLM checkpoint as a policy', () => {
  it('plays through its endpoint under its own name, and is refused when its spec names another model', async () => {
    const db = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-llm-ckpt-')), 'lab.db');
    const domain = bankingDomain();
    const endpoint = { name: 'qwen', baseUrl: 'http://127.0.0.1:9/v1', model: 'da-lora-1', apiKeyEnv: null, toolCalls: 'native' as const, maxConcurrency: 4 };
    const lab = openSqliteStore(db);
    try {
      llmStore(lab.db).addEndpoint(endpoint);
      checkpointStore(lab.db).save({
        role: 'DA',
        name: 'DA1',
        source: 'external',
        llm: { kind: 'endpoint', spec: 'qwen', baseUrl: endpoint.baseUrl, model: 'da-lora-1' },
      });
    } finally {
      lab.close();
    }
    const ctx = { db, seed: 0 };
    const da = await resolveDa('DA1', domain, ctx);
    expect(da).toBeInstanceOf(LlmDa);
    expect(da.name).toBe('DA1');
    expect(da.checkpoint).toEqual({ name: 'DA1', id: 'DA1' });
    expect((da as LlmDa).backend.model).toBe('da-lora-1');
    await expect(loadDaModel('DA1', domain, ctx)).rejects.toThrow(
      /checkpoint DA1 is an LLM DA \(LLM qwen: endpoint .*, model da-lora-1\), not builtin weights/,
    );

    const edit = (f: (l: ReturnType<typeof llmStore>) => void) => {
      const s = openSqliteStore(db);
      try {
        f(llmStore(s.db));
      } finally {
        s.close();
      }
      forgetEndpoints(db);
    };
    edit((l) => {
      l.removeEndpoint('qwen');
      l.addEndpoint({ ...endpoint, model: 'da-lora-2' });
    });
    await expect(resolveDa('DA1', domain, ctx)).rejects.toThrow(
      `checkpoint DA1 is the LLM qwen: endpoint ${endpoint.baseUrl}, model da-lora-1, but the lab's "qwen" now serves model da-lora-2`,
    );
    edit((l) => l.removeEndpoint('qwen'));
    await expect(resolveDa('DA1', domain, ctx)).rejects.toThrow(
      `but the lab ${db} has no model "qwen" now (sparring models add qwen --base-url ${endpoint.baseUrl} --model da-lora-1)`,
    );
  });
});
