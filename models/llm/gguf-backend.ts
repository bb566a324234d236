/**
 * A chat backend over a local GGUF file, in process, through node-llama-cpp (pinned 3.21.1): the
 * prebuilt llama.cpp binaries of `@node-llama-cpp/<platform>`, never a build or a download. The
 * file loads on the GPU node-llama-cpp finds (`gpu: 'auto'`: CUDA, Vulkan or Metal) or the CPU;
 * `gpu` on the backend says which it got, and the call records carry it in the model id.
 *
 * The DA speaks either form of `da-messages.ts`, the CA either form of `ca-messages.ts` (its native
 * call, `say`, under `caCallGrammarSchema()`; its text form free text). The DA's text form: the wire format constrained token by
 * token by a JSON-schema grammar (a request whose `responseSchema` is the wire schema is generated
 * under `daWireGrammarSchema()`, any other schema as given). The native form (a request with
 * `tools`: the trained form, what a checkpoint trained by TRL learnt): the prompt is the file's own
 * chat template (`tokenizer.chat_template`, rendered with the messages, arguments as objects, and
 * the tools, as transformers renders it), the reply opens with `<tool_call>\n` as the template
 * writes a call, and the call's JSON is generated under `daCallGrammarSchema()`; it comes back as
 * the reply's one tool call. A file without a chat template is refused the native form. The text
 * still goes to the one parser; nothing is repaired.
 *
 * `sequences` context sequences per file (default 1), each with its own chat: that many calls run
 * at once (`maxConcurrency`), and node-llama-cpp evaluates their tokens in shared batches, so a
 * match's episodes overlap as they do against a batching server. Each sequence holds its own KV
 * cache of `contextSize` tokens, so memory grows with `sequences`. Calls are recorded like
 * endpoint calls (tokens, latency); the cache key includes the file's SHA-256 through `model`
 * (`<file name>@sha256:<first 16 hex>`), so an edited file is a different model.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import type { ChatHistoryItem, Llama, LlamaChat, LlamaCompletion, LlamaContext, LlamaGrammar, LlamaModel, Token } from 'node-llama-cpp';
import type { ChatBackend, ChatMessage, ChatRequest, ChatResult, ChatTool } from './chat-backend';
import { ChatBackendError } from './chat-backend';
import { CA_SAY, caCallGrammarSchema } from './ca-messages';
import { DA_WIRE_SCHEMA, daCallGrammarSchema, daWireGrammarSchema } from './da-messages';
import { Semaphore } from './openai-backend';

/** Where the model runs: `auto` (the GPU found, else the CPU), a GPU type, or `cpu`. */
export type GgufGpu = 'auto' | 'cpu' | 'cuda' | 'vulkan' | 'metal';
export const GGUF_GPUS: readonly GgufGpu[] = ['auto', 'cpu', 'cuda', 'vulkan', 'metal'];

/** A GGUF model as the lab stores it (`sparring models add NAME --gguf FILE`) or a `gguf:FILE` SPEC makes it. */
export interface GgufConfig {
  name: string;
  /** Absolute path of the .gguf file. */
  path: string;
  /** SHA-256 of the file (hex), checked when it loads. */
  sha256: string;
  gpu: GgufGpu;
  /** Context window in tokens. */
  contextSize: number;
  /** CPU threads for evaluation; 0: node-llama-cpp's default (all cores). */
  threads: number;
  /** Context sequences: calls that run at once, their tokens evaluated in shared batches. */
  sequences: number;
}

/** The most context sequences a file is loaded with (each holds a KV cache of the whole context). */
export const GGUF_MAX_SEQUENCES = 64;

export const GGUF_DEFAULTS = { gpu: 'auto' as GgufGpu, contextSize: 8192, threads: 0, sequences: 1 };

/** SHA-256 of a file, streamed (GGUF files are gigabytes). */
export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The config of a file not saved in the lab (`gguf:FILE`), its hash computed now. */
export async function ggufConfigOf(file: string, opts: Partial<Omit<GgufConfig, 'path' | 'sha256'>> = {}): Promise<GgufConfig> {
  const abs = path.resolve(file);
  let st;
  try {
    st = statSync(abs);
  } catch {
    throw new ChatBackendError(opts.name ?? `gguf:${file}`, 'bad_request', `no such file ${abs}`, 0);
  }
  if (!st.isFile()) throw new ChatBackendError(opts.name ?? `gguf:${file}`, 'bad_request', `${abs} is not a file`, 0);
  return {
    name: opts.name ?? `gguf:${path.basename(abs)}`,
    path: abs,
    sha256: await fileSha256(abs),
    gpu: opts.gpu ?? GGUF_DEFAULTS.gpu,
    contextSize: opts.contextSize ?? GGUF_DEFAULTS.contextSize,
    threads: opts.threads ?? GGUF_DEFAULTS.threads,
    sequences: opts.sequences ?? GGUF_DEFAULTS.sequences,
  };
}

/** The model id a GGUF file answers as, in call records and cache keys: `<file name>@sha256:<first 16 hex>`. */
export function ggufModelId(cfg: Pick<GgufConfig, 'path' | 'sha256'>): string {
  return `${path.basename(cfg.path)}@sha256:${cfg.sha256.slice(0, 16)}`;
}

/** One llama.cpp runtime per GPU choice and thread cap, shared by every file loaded with it. */
const runtimes = new Map<string, Promise<Llama>>();

async function runtime(gpu: GgufGpu, threads: number): Promise<Llama> {
  const key = `${gpu}/${threads}`;
  let r = runtimes.get(key);
  if (!r) {
    const { getLlama } = await import('node-llama-cpp');
    r = getLlama({
      gpu: gpu === 'cpu' ? false : gpu,
      // The prebuilt binaries only: no cmake build, no download from GitHub.
      build: 'never',
      skipDownload: true,
      progressLogs: false,
      logLevel: 'error' as never,
      ...(threads > 0 ? { maxThreads: threads } : {}),
    });
    runtimes.set(key, r);
    r.catch(() => runtimes.delete(key));
  }
  return r;
}

/** The GGUF history of chat messages, ending in the empty model turn to generate. */
export function historyOf(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const items: ChatHistoryItem[] = messages.map((m): ChatHistoryItem => {
    switch (m.role) {
      case 'system':
        return { type: 'system', text: m.content };
      case 'user':
        return { type: 'user', text: m.content };
      case 'assistant':
        return { type: 'model', response: [m.tool_calls?.length ? JSON.stringify(m.tool_calls.map((c) => c.function)) : (m.content ?? '')] };
      case 'tool':
        return { type: 'user', text: `TOOL RESULT: ${m.content}` };
    }
  });
  items.push({ type: 'model', response: [] });
  return items;
}

/** The grammar schema a request's `responseSchema` is generated under. */
export function grammarSchemaFor(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.stringify(schema) === JSON.stringify(DA_WIRE_SCHEMA) ? daWireGrammarSchema() : schema;
}

/** The call grammar of a native request's tools: the customer's (`say` alone) or the DA's functions. */
export function callGrammarSchemaFor(tools: readonly ChatTool[]): Record<string, unknown> {
  return tools.length === 1 && tools[0]!.function.name === CA_SAY ? caCallGrammarSchema() : daCallGrammarSchema();
}

/** How the trained form's template (Qwen2.5's) opens a call in the model's turn. */
const CALL_OPEN = '<tool_call>\n';

/** The JSON value of a text, or the text itself when it is not JSON. */
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const FINISH: Record<string, string> = {
  eogToken: 'stop',
  stopGenerationTrigger: 'stop',
  customStopTrigger: 'stop',
  maxTokens: 'length',
  abort: 'aborted',
  functionCalls: 'tool_calls',
};

export class GgufBackend implements ChatBackend {
  readonly id: string;
  readonly model: string;
  readonly maxConcurrency: number;
  private readonly gate: Semaphore;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  /** Chats whose sequence no call holds (the gate lets at most as many calls in as there are chats). */
  private readonly idle: LlamaChat[];
  /** The file's chat template, for the native form; null when it has none. */
  private readonly template: Template | null;
  private readonly completions = new Map<LlamaChat, LlamaCompletion>();
  /** Calls in flight now, and the most there have been at once. */
  private inFlight = 0;
  peakInFlight = 0;

  private constructor(
    readonly config: GgufConfig,
    private readonly llama: Llama,
    private readonly llamaModel: LlamaModel,
    private readonly context: LlamaContext,
    chats: LlamaChat[],
  ) {
    this.id = config.name;
    this.model = ggufModelId(config);
    const tpl = (llamaModel.fileInfo.metadata as { tokenizer?: { chat_template?: string } }).tokenizer?.chat_template;
    this.template = tpl ? new Template(tpl) : null;
    this.idle = [...chats];
    this.maxConcurrency = chats.length;
    this.gate = new Semaphore(chats.length);
  }

  /** Whether the file carries a chat template (then it plays the native form, the trained one). */
  get hasChatTemplate(): boolean {
    return this.template !== null;
  }

  /** Where it runs: `cuda`, `vulkan`, `metal` or `cpu`. */
  get gpu(): string {
    return this.llama.gpu === false ? 'cpu' : this.llama.gpu;
  }

  /** Load the file (checking its hash against the config's) into a context of `contextSize` tokens. */
  static async load(config: GgufConfig): Promise<GgufBackend> {
    const fail = (kind: 'bad_request' | 'connection', message: string, cause?: unknown) =>
      new ChatBackendError(config.name, kind, message, 0, cause === undefined ? undefined : { cause });
    let sha: string;
    try {
      sha = await fileSha256(config.path);
    } catch (e) {
      throw fail('bad_request', `cannot read ${config.path}: ${(e as Error).message}`, e);
    }
    if (sha !== config.sha256)
      throw fail(
        'bad_request',
        `${config.path} has changed since it was saved (SHA-256 ${sha.slice(0, 16)}…, saved ${config.sha256.slice(0, 16)}…); save it again (sparring models remove/add)`,
      );
    let llama: Llama;
    try {
      llama = await runtime(config.gpu, config.threads);
    } catch (e) {
      throw fail(
        'connection',
        `node-llama-cpp could not load its prebuilt llama.cpp binary for ${process.platform}-${process.arch} (gpu ${config.gpu}): ${(e as Error).message}`,
        e,
      );
    }
    if (!Number.isInteger(config.sequences) || config.sequences < 1 || config.sequences > GGUF_MAX_SEQUENCES)
      throw fail('bad_request', `sequences must be a whole number from 1 to ${GGUF_MAX_SEQUENCES}, got ${config.sequences}`);
    try {
      const { LlamaChat } = await import('node-llama-cpp');
      const llamaModel = await llama.loadModel({ modelPath: config.path });
      const context = await llamaModel.createContext({
        contextSize: config.contextSize,
        sequences: config.sequences,
        ...(config.threads > 0 ? { threads: config.threads } : {}),
      });
      const chats = Array.from({ length: config.sequences }, () => new LlamaChat({ contextSequence: context.getSequence() }));
      return new GgufBackend(config, llama, llamaModel, context, chats);
    } catch (e) {
      throw fail('bad_request', `${config.path}: ${(e as Error).message}`, e);
    }
  }

  private grammar(schema: Record<string, unknown>): Promise<LlamaGrammar> {
    const s = grammarSchemaFor(schema);
    const key = JSON.stringify(s);
    let g = this.grammars.get(key);
    if (!g) this.grammars.set(key, (g = this.llama.createGrammarForJsonSchema(s as never)));
    return g;
  }

  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    if (req.tools?.length && !this.template)
      return Promise.reject(
        new ChatBackendError(this.id, 'bad_request', `${this.config.path} has no chat template (tokenizer.chat_template): it plays the text form only`, 0),
      );
    return this.gate.run(async () => {
      const chat = this.idle.pop()!;
      this.peakInFlight = Math.max(this.peakInFlight, ++this.inFlight);
      try {
        return req.tools?.length ? await this.generateCall(chat, req, signal) : await this.generate(chat, req, signal);
      } finally {
        this.inFlight--;
        this.idle.push(chat);
      }
    });
  }

  /** One call on one chat (its own context sequence). */
  private async generate(chat: LlamaChat, req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const history = historyOf(req.messages);
    const grammar = req.responseSchema ? await this.grammar(req.responseSchema) : undefined;
    const tokensIn = chat.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(this.llamaModel.tokenizer).length;
    let tokensOut = 0;
    const t0 = performance.now();
    let res;
    try {
      res = await chat.generateResponse(history, {
        maxTokens: req.max_tokens,
        temperature: req.temperature,
        ...(req.top_p !== undefined ? { topP: req.top_p } : {}),
        ...(req.seed !== undefined ? { seed: req.seed } : {}),
        ...(grammar ? { grammar } : {}),
        ...(signal ? { signal } : {}),
        onToken: (tokens) => void (tokensOut += tokens.length),
      });
    } catch (e) {
      if (signal?.aborted) throw new ChatBackendError(this.id, 'aborted', (e as Error).message, 1, { cause: e });
      throw new ChatBackendError(this.id, 'bad_response', `generation failed: ${(e as Error).message}`, 1, { cause: e });
    }
    return {
      text: res.response,
      toolCalls: [],
      tokensIn,
      tokensOut,
      latencyMs: performance.now() - t0,
      model: this.model,
      finishReason: FINISH[res.metadata.stopReason] ?? res.metadata.stopReason,
    };
  }

  /** The prompt of a native request: the file's chat template over the messages (arguments as objects) and tools. */
  nativePrompt(req: Pick<ChatRequest, 'messages' | 'tools'>): string {
    const messages = req.messages.map((m) =>
      m.role === 'assistant' && m.tool_calls?.length
        ? {
            ...m,
            tool_calls: m.tool_calls.map((c) => ({
              ...c,
              function: { name: c.function.name, arguments: typeof c.function.arguments === 'string' ? parseOr(c.function.arguments) : c.function.arguments },
            })),
          }
        : m,
    );
    return this.template!.render({ messages, tools: req.tools, add_generation_prompt: true }) + CALL_OPEN;
  }

  /** One native call: the call's JSON under the grammar, after the template's opening of a call. */
  private async generateCall(chat: LlamaChat, req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    let completion = this.completions.get(chat);
    if (!completion) {
      const { LlamaCompletion } = await import('node-llama-cpp');
      this.completions.set(chat, (completion = new LlamaCompletion({ contextSequence: chat.sequence })));
    }
    const grammar = await this.grammar(callGrammarSchemaFor(req.tools!));
    const tokens: Token[] = this.llamaModel.tokenize(this.nativePrompt(req), true);
    let tokensOut = 0;
    const t0 = performance.now();
    let res;
    try {
      res = await completion.generateCompletionWithMeta(tokens, {
        maxTokens: req.max_tokens,
        temperature: req.temperature,
        ...(req.top_p !== undefined ? { topP: req.top_p } : {}),
        ...(req.seed !== undefined ? { seed: req.seed } : {}),
        grammar,
        ...(signal ? { signal } : {}),
        onToken: (t) => void (tokensOut += t.length),
      });
    } catch (e) {
      if (signal?.aborted) throw new ChatBackendError(this.id, 'aborted', (e as Error).message, 1, { cause: e });
      throw new ChatBackendError(this.id, 'bad_response', `generation failed: ${(e as Error).message}`, 1, { cause: e });
    }
    const call = parseOr(res.response) as { name?: unknown; arguments?: unknown } | string;
    const ok = typeof call === 'object' && call !== null && typeof call.name === 'string';
    return {
      text: ok ? '' : CALL_OPEN + res.response,
      toolCalls: ok ? [{ name: call.name as string, arguments: JSON.stringify(call.arguments ?? {}) }] : [],
      tokensIn: tokens.length,
      tokensOut,
      latencyMs: performance.now() - t0,
      model: this.model,
      finishReason: ok ? 'tool_calls' : (FINISH[res.metadata.stopReason] ?? res.metadata.stopReason),
    };
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
    await this.llamaModel.dispose();
  }
}

/**
 * Why local GGUF models cannot run here (node-llama-cpp has no prebuilt binary that loads on this
 * platform), or null when they can. Tests skip with this reason; nothing else may.
 */
export async function ggufUnavailable(gpu: GgufGpu = 'cpu'): Promise<string | null> {
  try {
    await runtime(gpu, 1);
    return null;
  } catch (e) {
    return `node-llama-cpp 3.21.1 has no prebuilt llama.cpp binary that loads on ${process.platform}-${process.arch} (gpu ${gpu}): ${(e as Error).message}`;
  }
}
