/**
 * A checkpoint trained in the trained form plays it as a GGUF (issue 50 item 4's playing half): a
 * tiny Qwen2 made here (trainers/tiny_qwen2.py: random weights, a tokenizer trained on the lab's
 * utterances, Qwen2.5's chat template), written as GGUF by trainers/write_gguf.py (the `gguf`
 * package), loads in node-llama-cpp 3.21.1; the prompt its backend renders from the file's own
 * chat template is, character for character, transformers' `apply_chat_template` of the same
 * messages and tools (so the tokens are the training tokens); its grammar-bound call parses, and it
 * plays an arena episode to the end; as a customer (the CA's trained form) its grammar-bound `say`
 * call parses too. Prints the load time and tokens/s.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { runEpisode } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { parseDaOutput } from '../../core/wire';
import { CustomerEnvironment } from '../../core/world/environment';
import { wireFromReply } from '../../models/llm/da-messages';
import { GgufBackend, ggufConfigOf, ggufUnavailable } from '../../models/llm/gguf-backend';
import { LlmDa } from '../../models/llm/llm-da';
import { CA_GRAMMAR_MAX_TOKENS } from '../../models/llm/ca-messages';
import { LlmCa } from '../../models/llm/llm-ca';
import { ROOT, venvPython } from '../../test/support/python-env';
import { bankingDomain } from '../domain-files';

const run = promisify(execFile);
const domain = bankingDomain();
const unavailable = await ggufUnavailable('cpu');

describe.skipIf(unavailable !== null)('a trained-form checkpoint as a GGUF (tiny Qwen2, node-llama-cpp)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sparring-gguf-trained-'));
  const modelDir = path.join(dir, 'model');
  const file = path.join(dir, 'model.gguf');
  let backend: GgufBackend;
  let loadMs = 0;

  beforeAll(async () => {
    const python = venvPython();
    await run(python, [path.join(ROOT, 'trainers', 'tiny_qwen2.py'), modelDir], { timeout: 180_000 });
    await run(python, [path.join(ROOT, 'trainers', 'write_gguf.py'), modelDir, file], { timeout: 180_000 });
    const t0 = performance.now();
    backend = await GgufBackend.load(await ggufConfigOf(file, { gpu: 'cpu', threads: 1, contextSize: 4096 }));
    loadMs = performance.now() - t0;
  }, 400_000);
  afterAll(async () => {
    await backend?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders the training prompt, answers with a call that parses, and plays an episode to its end', async () => {
    const scenario = selectScenarios(domain, 'arena')[0]!;
    const env = new CustomerEnvironment(DEFAULT_CONFIG.arena.maxDaTurns);
    env.reset(scenario, 3);
    const phone = env.observeAgent().caller.phone;
    env.step({ role: 'customer', text: 'My card was declined at the grocery store.' });
    env.step({ role: 'agent', raw: JSON.stringify({ thinking: 'verify', action_type: 'tool_call', content: 'lookup_account', tool_args: { phone } }) });
    env.step({ role: 'agent', raw: JSON.stringify({ thinking: 'ask', action_type: 'speak', content: 'Which card was it?', tool_args: {} }) });
    env.step({ role: 'customer', text: 'The debit one.' });
    const da = new LlmDa(backend, 'native', { maxTokens: 256 });
    const req = da.request(env.observeAgent(), 7);

    // The backend's prompt = transformers' rendering of the same messages and tools.
    const spec = path.join(dir, 'req.json');
    writeFileSync(spec, JSON.stringify({ messages: req.messages, tools: req.tools }));
    const script = [
      'import json, sys',
      'from transformers import AutoTokenizer',
      `tok = AutoTokenizer.from_pretrained(${JSON.stringify(modelDir)})`,
      `r = json.load(open(${JSON.stringify(spec)}))`,
      'print(json.dumps(tok.apply_chat_template(r["messages"], tools=r["tools"], add_generation_prompt=True, tokenize=False)))',
    ].join('\n');
    const { stdout } = await run(venvPython(), ['-c', script], { timeout: 120_000 });
    const python = JSON.parse(stdout.trim().split('\n').at(-1)!) as string;
    expect(backend.nativePrompt(req)).toBe(`${python}<tool_call>\n`);

    // A grammar-bound call: it parses, whatever the random weights say.
    const reply = await backend.complete(req);
    expect(reply.toolCalls).toHaveLength(1);
    expect(parseDaOutput(wireFromReply(reply, 'native')).ok).toBe(true);
    const tokensPerS = reply.tokensOut / (reply.latencyMs / 1000);

    // An arena episode to its end.
    const ep = await runEpisode({
      domain,
      scenario,
      seed: 3,
      da,
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: DEFAULT_CONFIG,
      matchId: 'M',
      index: 0,
    });
    const agentTurns = ep.record.turns.filter((t) => t.role === 'agent');
    expect(agentTurns.length).toBeGreaterThan(0);
    expect(agentTurns.every((t) => t.parseError === null)).toBe(true);
    // The customer's seat in its trained form: one say call under the call grammar, whatever the weights say.
    const ca = new LlmCa(backend, { mode: 'native', maxTokens: CA_GRAMMAR_MAX_TOKENS });
    const said = await backend.complete(ca.request(env.observeCustomer(), 7));
    expect(said.toolCalls.map((c) => c.name)).toEqual(['say']);
    expect(typeof (JSON.parse(said.toolCalls[0]!.arguments) as { utterance: unknown }).utterance).toBe('string');
    console.log(
      `GGUF (tiny Qwen2, CPU, 1 thread): load ${loadMs.toFixed(0)} ms; one call ${reply.tokensOut} tokens in ${reply.latencyMs.toFixed(0)} ms = ${tokensPerS.toFixed(1)} tokens/s (prompt ${reply.tokensIn} tokens); episode: ${agentTurns.length} DA turns, end ${ep.record.endReason}`,
    );
  }, 300_000);
});
