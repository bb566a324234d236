/**
 * `sparring models add|list|test|remove`: LLM endpoints saved in the lab by name, usable as a
 * policy SPEC for either role wherever one is taken (`match --da NAME`, `eval`, `play`, `route`,
 * `diff`). The API key is read from the named environment variable at call time; the lab stores
 * only the variable's name.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { ChatBackendError } from '../../../models/llm/chat-backend';
import { OpenAiBackend } from '../../../models/llm/openai-backend';
import type { EndpointConfig, ToolCallMode } from '../../../models/llm/openai-backend';
import { testEndpoint } from '../../llm/test-endpoint';
import { EndpointError, llmStore, normalizeBaseUrl } from '../../store/llm-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { positiveInt, UsageError } from '../options';
import { table } from '../../format/table';
import type { GlobalOptions } from '../main';

interface AddOptions {
  baseUrl: string;
  model: string;
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

export function registerModels(program: Command, globals: () => GlobalOptions): void {
  const cmd = program.command('models').description('LLM endpoints (OpenAI-compatible) saved in the lab, usable as a DA or CA policy by name');
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
  const endpoint = (name: string) =>
    withStore((llm) => {
      const cfg = llm.getEndpoint(name);
      if (!cfg) throw new UsageError(`no endpoint "${name}" in ${globals().db}; saved ones: ${llm.listEndpoints().map((e) => e.name).join(', ') || 'none'} (sparring models add)`);
      return cfg;
    });

  cmd
    .command('add')
    .argument('<name>', 'the name policies refer to, e.g. --da NAME')
    .requiredOption('--base-url <url>', 'the server\'s OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1', baseUrlOf)
    .requiredOption('--model <id>', 'the model id the server serves (see `models list NAME`)')
    .option('--api-key-env <var>', 'environment variable holding the API key (read at call time, never stored)')
    .addOption(new Option('--tool-calls <form>', 'DA actions as native tool calls, or as the wire-format JSON text').choices(['native', 'text']).default('native'))
    .option('--max-concurrency <n>', 'requests (and match episodes) in flight at once', positiveInt('--max-concurrency'), 4)
    .description('save an endpoint in the lab')
    .action((name: string, o: AddOptions) => {
      if (o.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.apiKeyEnv)) throw new UsageError(`--api-key-env must name an environment variable, got "${o.apiKeyEnv}"`);
      const cfg: EndpointConfig = { name, baseUrl: o.baseUrl, model: o.model, apiKeyEnv: o.apiKeyEnv ?? null, toolCalls: o.toolCalls, maxConcurrency: o.maxConcurrency };
      withStore((llm) => llm.addEndpoint(cfg));
      if (globals().json) process.stdout.write(JSON.stringify(cfg, null, 2) + '\n');
      else process.stdout.write(`saved endpoint ${name} (${cfg.model} at ${cfg.baseUrl}, ${cfg.toolCalls} tool calls, ${cfg.maxConcurrency} at once) in ${globals().db}\n`);
    });

  cmd
    .command('list')
    .argument('[name]', 'list the models this endpoint\'s server offers (/v1/models)')
    .description('the saved endpoints, or one server\'s models')
    .action(async (name?: string) => {
      if (name) {
        const models = await new OpenAiBackend(endpoint(name), { maxRetries: 1 }).listModels();
        if (globals().json) process.stdout.write(JSON.stringify({ endpoint: name, models }, null, 2) + '\n');
        else process.stdout.write(models.join('\n') + '\n');
        return;
      }
      const list = withStore((llm) => llm.listEndpoints());
      if (globals().json) return void process.stdout.write(JSON.stringify(list, null, 2) + '\n');
      process.stdout.write(
        table(
          ['name', 'model', 'base URL', 'key from', 'tool calls', 'at once'],
          list.map((e) => [e.name, e.model, e.baseUrl, e.apiKeyEnv ?? '–', e.toolCalls, e.maxConcurrency]),
          ['l', 'l', 'l', 'l', 'l', 'r'],
        ) + '\n',
      );
    });

  cmd
    .command('test')
    .argument('<name>')
    .description('one DA turn as a round trip: latency, tokens/s, whether the reply parses; and the server\'s models')
    .action(async (name: string) => {
      let r;
      try {
        r = await testEndpoint(endpoint(name));
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
      if (!removed) throw new UsageError(`no endpoint "${name}" in ${globals().db}`);
      if (globals().json) process.stdout.write(JSON.stringify({ removed: name }) + '\n');
      else process.stdout.write(`removed endpoint ${name}\n`);
    });
}
