/**
 * `sparring models add|list|test|remove`: LLM endpoints and local GGUF files saved in the lab by
 * name, usable as a policy SPEC for either role wherever one is taken (`match --da NAME`, `eval`,
 * `play`, `route`, `diff`). The API key is read from the named environment variable at call time;
 * the lab stores only the variable's name. A GGUF file is stored as its path and SHA-256.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { ChatBackendError } from '../../../models/llm/chat-backend';
import { GGUF_DEFAULTS, GGUF_GPUS, GGUF_MAX_SEQUENCES, ggufConfigOf } from '../../../models/llm/gguf-backend';
import type { GgufConfig, GgufGpu } from '../../../models/llm/gguf-backend';
import { OpenAiBackend } from '../../../models/llm/openai-backend';
import type { EndpointConfig, ToolCallMode } from '../../../models/llm/openai-backend';
import { testEndpoint, testGguf } from '../../llm/test-endpoint';
import { EndpointError, llmStore, normalizeBaseUrl } from '../../store/llm-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { positiveInt, UsageError } from '../options';
import { table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

interface AddOptions {
  baseUrl?: string;
  model?: string;
  gguf?: string;
  gpu: GgufGpu;
  contextSize: number;
  threads: number;
  sequences: number;
  apiKeyEnv?: string;
  toolCalls: ToolCallMode;
  maxConcurrency: number;
}

function baseUrlOf(value: string): string {
  try {
    return normalizeBaseUrl(value);
  } catch (e) {
    throw new InvalidArgumentError(`--${(e as Error).message.replace(/^base URL/, 'base-url')}.`);
  }
}

function nonNegativeInt(name: string) {
  return (v: string) => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number ≥ 0, got "${v}".`);
    return Number(v);
  };
}

export function registerModels(program: Command, globals: () => GlobalOptions): void {
  const cmd = program
    .command('models')
    .description('LLM endpoints (OpenAI-compatible) and local GGUF files saved in the lab, usable as a DA or CA policy by name');
  const withStore = <T>(work: (llm: ReturnType<typeof llmStore>) => T): T => {
    const store = openSqliteStore(globals().db);
    try {
      return work(llmStore(store.db));
    } catch (e) {
      if (e instanceof EndpointError) throw new UsageError(e.message);
      throw e;
    } finally {
      store.close();
    }
  };
  const saved = (name: string): { endpoint: EndpointConfig } | { gguf: GgufConfig } =>
    withStore((llm) => {
      const s = llm.saved(name);
      if (s) return s;
      throw new UsageError(`no model "${name}" in ${globals().db}; saved ones: ${llm.savedNames().join(', ') || 'none'} (sparring models add)`);
    });
  const endpoint = (name: string) => {
    const s = saved(name);
    if ('gguf' in s) throw new UsageError(`"${name}" is a local GGUF file (${s.gguf.path}), not a server: it has no model list`);
    return s.endpoint;
  };

  cmd
    .command('add')
    .argument('<name>', 'the name policies refer to, e.g. --da NAME')
    .option('--base-url <url>', "the server's OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1", baseUrlOf)
    .option('--model <id>', 'the model id the server serves (see `models list NAME`)')
    .option('--gguf <file>', 'instead of a server: a local GGUF file, run in process by node-llama-cpp')
    .addOption(
      new Option('--gpu <where>', 'with --gguf: where it runs (auto: the GPU found — CUDA, Vulkan, Metal — else the CPU)')
        .choices([...GGUF_GPUS])
        .default(GGUF_DEFAULTS.gpu),
    )
    .option('--context-size <n>', 'with --gguf: context window in tokens', positiveInt('--context-size'), GGUF_DEFAULTS.contextSize)
    .option('--threads <n>', 'with --gguf: CPU threads (0: all cores)', nonNegativeInt('--threads'), GGUF_DEFAULTS.threads)
    .option(
      '--sequences <n>',
      `with --gguf: calls run at once, each on its own context sequence (a KV cache of --context-size tokens each), their tokens evaluated in shared batches; 1 to ${GGUF_MAX_SEQUENCES}. Above 1 a call's tokens can depend on which calls share its batch`,
      positiveInt('--sequences'),
      GGUF_DEFAULTS.sequences,
    )
    .option('--api-key-env <var>', 'environment variable holding the API key (read at call time, never stored)')
    .addOption(
      new Option(
        '--tool-calls <form>',
        "the trained form: native tool calls (the DA's actions, the CA's say calls) or text (the DA's wire-format JSON, the CA's plain words)",
      )
        .choices(['native', 'text'])
        .default('native'),
    )
    .option('--max-concurrency <n>', 'requests (and match episodes) in flight at once', positiveInt('--max-concurrency'), 4)
    .description('save an endpoint (--base-url, --model) or a local GGUF file (--gguf) in the lab')
    .action(async (name: string, o: AddOptions) => {
      if (o.gguf !== undefined) {
        if (o.baseUrl !== undefined || o.model !== undefined) throw new UsageError('--gguf is a local file: give it without --base-url and --model');
        let cfg: GgufConfig;
        try {
          cfg = await ggufConfigOf(o.gguf, { name, gpu: o.gpu, contextSize: o.contextSize, threads: o.threads, sequences: o.sequences });
        } catch (e) {
          if (e instanceof ChatBackendError) throw new UsageError(`--gguf: ${e.detail}`);
          throw e;
        }
        withStore((llm) => llm.addGguf(cfg));
        if (globals().json) process.stdout.write(JSON.stringify(cfg, null, 2) + '\n');
        else
          process.stdout.write(
            `saved GGUF model ${name} (${cfg.path}, SHA-256 ${cfg.sha256.slice(0, 16)}…, gpu ${cfg.gpu}, context ${cfg.contextSize}, ${cfg.sequences} at once) in ${globals().db}\n`,
          );
        return;
      }
      if (o.baseUrl === undefined || o.model === undefined)
        throw new UsageError('models add needs --base-url and --model (an endpoint), or --gguf FILE (a local file)');
      if (o.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.apiKeyEnv))
        throw new UsageError(`--api-key-env must name an environment variable, got "${o.apiKeyEnv}"`);
      const cfg: EndpointConfig = {
        name,
        baseUrl: o.baseUrl,
        model: o.model,
        apiKeyEnv: o.apiKeyEnv ?? null,
        toolCalls: o.toolCalls,
        maxConcurrency: o.maxConcurrency,
      };
      withStore((llm) => llm.addEndpoint(cfg));
      if (globals().json) process.stdout.write(JSON.stringify(cfg, null, 2) + '\n');
      else
        process.stdout.write(
          `saved endpoint ${name} (${cfg.model} at ${cfg.baseUrl}, ${cfg.toolCalls} tool calls, ${cfg.maxConcurrency} at once) in ${globals().db}\n`,
        );
    });

  cmd
    .command('list')
    .argument('[name]', "list the models this endpoint's server offers (/v1/models)")
    .description("the saved endpoints, or one server's models")
    .action(async (name?: string) => {
      if (name) {
        const models = await new OpenAiBackend(endpoint(name), { maxRetries: 1 }).listModels();
        if (globals().json) process.stdout.write(JSON.stringify({ endpoint: name, models }, null, 2) + '\n');
        else process.stdout.write(models.join('\n') + '\n');
        return;
      }
      const [list, gguf] = withStore((llm) => [llm.listEndpoints(), llm.listGguf()] as const);
      if (globals().json) return void process.stdout.write(JSON.stringify(gguf.length ? { endpoints: list, gguf } : list, null, 2) + '\n');
      if (list.length || !gguf.length) {
        process.stdout.write(
          table(
            ['name', 'model', 'base URL', 'key from', 'tool calls', 'at once'],
            list.map((e) => [e.name, e.model, e.baseUrl, e.apiKeyEnv ?? '–', e.toolCalls, e.maxConcurrency]),
            ['l', 'l', 'l', 'l', 'l', 'r'],
          ) + '\n',
        );
      }
      if (gguf.length) {
        process.stdout.write(
          (list.length ? '\n' : '') +
            table(
              ['name', 'GGUF file', 'SHA-256', 'gpu', 'context', 'threads', 'at once'],
              gguf.map((m) => [m.name, m.path, `${m.sha256.slice(0, 16)}…`, m.gpu, m.contextSize, m.threads || 'all', m.sequences]),
              ['l', 'l', 'l', 'l', 'r', 'r', 'r'],
            ) +
            '\n',
        );
      }
    });

  cmd
    .command('test')
    .argument('<name>')
    .description("one DA turn as a round trip: latency, tokens/s, whether the reply parses; and the server's models")
    .action(async (name: string) => {
      const which = saved(name);
      if ('gguf' in which) {
        let g;
        try {
          g = await testGguf(which.gguf);
        } catch (e) {
          if (e instanceof ChatBackendError) throw new UsageError(e.message);
          throw e;
        }
        if (globals().json) return void process.stdout.write(JSON.stringify(g, null, 2) + '\n');
        process.stdout.write(
          `${name}: ${g.model} on ${g.gpu} (loaded in ${g.loadMs.toFixed(0)} ms), ${g.latencyMs.toFixed(0)} ms, ${g.tokensIn} tokens in, ${g.tokensOut} out` +
            `${g.tokensPerS === null ? '' : ` (${g.tokensPerS.toFixed(1)} tokens/s)`}, finish ${g.finishReason}\n` +
            `reply: ${g.raw}\n` +
            (g.parsed ? `parses: ${g.parsed.action_type} ${g.parsed.content}\n` : `does not parse: ${g.parseError}\n`),
        );
        return;
      }
      let r;
      try {
        r = await testEndpoint(which.endpoint);
      } catch (e) {
        if (e instanceof ChatBackendError) throw new UsageError(e.message);
        throw e;
      }
      if (globals().json) return void process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      process.stdout.write(
        `${name}: ${r.model}, ${r.latencyMs.toFixed(0)} ms, ${r.tokensIn} tokens in, ${r.tokensOut} out` +
          `${r.tokensPerS === null ? '' : ` (${r.tokensPerS.toFixed(1)} tokens/s)`}, finish ${r.finishReason}\n` +
          `reply: ${r.raw}\n` +
          (r.parsed ? `parses: ${r.parsed.action_type} ${r.parsed.content}\n` : `does not parse: ${r.parseError}\n`) +
          `server models: ${Array.isArray(r.serverModels) ? r.serverModels.join(', ') : r.serverModels}\n`,
      );
    });

  cmd
    .command('remove')
    .argument('<name>')
    .description('remove an endpoint and its cached answers (the call records of stored episodes stay)')
    .action((name: string) => {
      const removed = withStore((llm) => llm.removeEndpoint(name));
      if (!removed) throw new UsageError(`no model "${name}" in ${globals().db}`);
      if (globals().json) process.stdout.write(JSON.stringify({ removed: name }) + '\n');
      else process.stdout.write(`removed ${name}\n`);
    });
}
