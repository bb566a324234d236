/**
 * Models: the LLMs saved in the lab, usable by name as the DA or the CA in the Arena, Play and
 * Experiments screens (issue 14). Add an OpenAI-compatible endpoint (vLLM, SGLang, llama.cpp's
 * server, Ollama, a hosted API, or Sparring's own `serve-model`), test it with one DA turn
 * (latency, tokens, tokens/s, whether the reply parses), list its server's models, remove it.
 * The API key stays in an environment variable of the engine's; only the variable's name is saved.
 */
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import type { ModelAddGgufArgs, ModelInfo } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { formatCount } from '../../format';
import {
  addGgufModel,
  addModel,
  clearAddError,
  listServerModels,
  loadModels,
  removeModel,
  selectAddError,
  selectAdding,
  selectChecks,
  selectModels,
  selectModelsError,
  selectModelsStatus,
  testModel,
  useModelsStore,
} from './models-store';
import type { AddForm as AddFormName, ModelCheck } from './models-store';

export function ModelsScreen() {
  const models = useModelsStore(selectModels);
  const status = useModelsStore(selectModelsStatus);
  const error = useModelsStore(selectModelsError);
  useEffect(() => {
    void loadModels();
  }, []);
  return (
    <div className="screen" data-testid="screen-models">
      <header className="screen-head">
        <h1>Models</h1>
        <p className="lede">
          LLMs saved in this lab play either seat by name: pick one as the DA or the CA in the Arena, Play or Experiments. An endpoint is any OpenAI-compatible
          server (vLLM, SGLang, llama.cpp, Ollama, a hosted API, or <span className="mono">sparring serve-model</span>); a local GGUF file runs in the
          engine&apos;s process (node-llama-cpp). Every call records its tokens and latency, shown per match and per episode.
        </p>
      </header>
      <AddForm />
      <AddGgufForm />
      <section className="panel">
        <header className="panel-head">
          <h3>Models in this lab</h3>
          <button className="btn tiny" onClick={() => void loadModels()}>
            Refresh
          </button>
        </header>
        {status === 'loading' && <LoadingState label="Loading models…" />}
        {status === 'error' && (
          <ErrorState title="Could not load the models" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadModels() }]} />
        )}
        {status === 'ready' && models.length === 0 && (
          <EmptyState title="No models in this lab yet" testId="models-empty">
            Add an endpoint or a local GGUF file above (or with <span className="mono">sparring models add</span>).
          </EmptyState>
        )}
        {status !== 'error' && error && <div className="inline-error">{error}</div>}
        {models.length > 0 && <ModelsTable models={models} />}
      </section>
    </div>
  );
}

/** Whether this add form is saving now, and the refusal it got (the other form's are not its). */
function useAddState(form: AddFormName): { adding: boolean; addError: string | null } {
  const adding = useModelsStore(selectAdding) === form;
  const refused = useModelsStore(selectAddError);
  return { adding, addError: refused?.form === form ? refused.message : null };
}

/** An add form's panel: its title, the form, the engine's refusal under it, and a hint. */
function AddPanel(p: { title: string; error: string | null; errorTestId: string; hint: ReactNode; children: ReactNode }) {
  return (
    <section className="panel">
      <header className="panel-head">
        <h3>{p.title}</h3>
      </header>
      {p.children}
      {p.error && (
        <div className="inline-error" role="alert" data-testid={p.errorTestId}>
          {p.error}
        </div>
      )}
      <p className="hint">{p.hint}</p>
    </section>
  );
}

function AddForm() {
  const { adding, addError } = useAddState('endpoint');
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('http://127.0.0.1:8000/v1');
  const [model, setModel] = useState('');
  const [apiKeyEnv, setApiKeyEnv] = useState('');
  const [toolCalls, setToolCalls] = useState<'native' | 'text'>('native');
  const [maxConcurrency, setMaxConcurrency] = useState(4);
  const missing = [
    ...(name.trim() === '' ? ['a name'] : []),
    ...(baseUrl.trim() === '' ? ['a base URL'] : []),
    ...(model.trim() === '' ? ['the model'] : []),
    ...(Number.isInteger(maxConcurrency) && maxConcurrency >= 1 ? [] : ['"At once" as a whole number of at least 1']),
  ];
  const valid = missing.length === 0;
  return (
    <AddPanel
      title="Add an endpoint"
      error={addError}
      errorTestId="model-add-error"
      hint="The key is read from the variable when a call is made; only the variable's name is stored in the lab."
    >
      <form
        className="form-row"
        data-testid="model-add-form"
        onChange={() => clearAddError('endpoint')}
        onSubmit={(e) => {
          e.preventDefault();
          if (!valid || adding) return;
          const saved = name.trim();
          void addModel({
            name: name.trim(),
            baseUrl: baseUrl.trim(),
            model: model.trim(),
            apiKeyEnv: apiKeyEnv.trim() || undefined,
            toolCalls,
            maxConcurrency,
          }).then((ok) => {
            if (ok) {
              setName('');
              setModel('');
              // Saving tests the endpoint at once: its row shows the round trip or why it failed.
              void testModel(saved);
            }
          });
        }}
      >
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="qwen3b" maxLength={64} data-testid="model-name" />
        </label>
        <label className="grow">
          Base URL
          <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} data-testid="model-base-url" />
        </label>
        <label>
          Model
          <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="Qwen/Qwen2.5-3B-Instruct" data-testid="model-model" />
        </label>
        <label title="The environment variable (of the engine's process) holding the API key; the key itself is never saved">
          API key variable
          <input value={apiKeyEnv} onChange={(e) => setApiKeyEnv(e.target.value)} placeholder="OPENAI_API_KEY (optional)" data-testid="model-api-key-env" />
        </label>
        <label title="native: the DA's actions as tool calls; text: the wire-format JSON in the reply (servers without tool calling)">
          Tool calls
          <select value={toolCalls} onChange={(e) => setToolCalls(e.target.value as 'native' | 'text')} data-testid="model-tool-calls">
            <option value="native">native</option>
            <option value="text">text</option>
          </select>
        </label>
        <label title="Requests in flight at once: a match keeps this many episodes going">
          At once
          <input
            type="number"
            min={1}
            max={1024}
            value={maxConcurrency}
            onChange={(e) => setMaxConcurrency(e.target.valueAsNumber)}
            data-testid="model-max-concurrency"
          />
        </label>
        <button type="submit" className="btn primary" disabled={!valid || adding} data-testid="model-add">
          {adding ? 'Saving…' : 'Save endpoint'}
        </button>
        {!valid && (
          <span className="muted small" data-testid="model-add-missing">
            To save, give {missing.join(', ')}.
          </span>
        )}
      </form>
    </AddPanel>
  );
}

/** A local GGUF file, run in the engine's process by node-llama-cpp: its path there and how it runs. */
function AddGgufForm() {
  const { adding, addError } = useAddState('gguf');
  const [name, setName] = useState('');
  const [file, setFile] = useState('');
  const [gpu, setGpu] = useState<GgufGpu>('auto');
  const [contextSize, setContextSize] = useState(8192);
  const [threads, setThreads] = useState(0);
  const [sequences, setSequences] = useState(1);
  const whole = (n: number, min: number) => Number.isInteger(n) && n >= min;
  const missing = [
    ...(name.trim() === '' ? ['a name'] : []),
    ...(file.trim() === '' ? ['the file'] : []),
    ...(whole(contextSize, 256) ? [] : ['a context of at least 256 tokens']),
    ...(whole(threads, 0) ? [] : ['threads as a whole number (0: all cores)']),
    ...(whole(sequences, 1) ? [] : ['"At once" as a whole number of at least 1']),
  ];
  const valid = missing.length === 0;
  return (
    <AddPanel
      title="Add a local GGUF file"
      error={addError}
      errorTestId="gguf-add-error"
      hint="The lab stores the path and the file's SHA-256, checked each time it loads: an edited file must be saved again."
    >
      <form
        className="form-row"
        data-testid="gguf-add-form"
        onChange={() => clearAddError('gguf')}
        onSubmit={(e) => {
          e.preventDefault();
          if (!valid || adding) return;
          void addGgufModel({ name: name.trim(), file: file.trim(), gpu, contextSize, threads, sequences }).then((ok) => {
            if (ok) {
              setName('');
              setFile('');
            }
          });
        }}
      >
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="qwen3b-local" maxLength={64} data-testid="gguf-name" />
        </label>
        <label className="grow" title="The file's path where the engine runs">
          File
          <input value={file} onChange={(e) => setFile(e.target.value)} placeholder="/models/qwen2.5-3b-instruct-q4_k_m.gguf" data-testid="gguf-file" />
        </label>
        <label title="auto: the GPU node-llama-cpp finds (CUDA, Vulkan, Metal), else the CPU">
          Where
          <select value={gpu} onChange={(e) => setGpu(e.target.value as GgufGpu)} data-testid="gguf-gpu">
            {GGUF_GPU_CHOICES.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <label title="Context window in tokens, per sequence">
          Context
          <input type="number" min={256} value={contextSize} onChange={(e) => setContextSize(e.target.valueAsNumber)} data-testid="gguf-context" />
        </label>
        <label title="CPU threads (0: all cores)">
          Threads
          <input type="number" min={0} value={threads} onChange={(e) => setThreads(e.target.valueAsNumber)} data-testid="gguf-threads" />
        </label>
        <label title="Calls at once, each on its own context sequence (a KV cache of the whole context each), their tokens evaluated in shared batches. Above 1 a call's tokens can depend on which calls share its batch.">
          At once
          <input type="number" min={1} max={64} value={sequences} onChange={(e) => setSequences(e.target.valueAsNumber)} data-testid="gguf-sequences" />
        </label>
        <button type="submit" className="btn primary" disabled={!valid || adding} data-testid="gguf-add">
          {adding ? 'Hashing…' : 'Save GGUF file'}
        </button>
        {!valid && (
          <span className="muted small" data-testid="gguf-add-missing">
            To save, give {missing.join(', ')}.
          </span>
        )}
      </form>
    </AddPanel>
  );
}

/** Where a GGUF file can run, as the contract lists it (the renderer imports no model code). */
type GgufGpu = NonNullable<ModelAddGgufArgs['gpu']>;
const GGUF_GPU_CHOICES: readonly GgufGpu[] = ['auto', 'cpu', 'cuda', 'vulkan', 'metal'];

function keyCell(m: ModelInfo) {
  if (m.apiKeyEnv === null) return <span className="muted">none</span>;
  return (
    <span className="mono" title={m.apiKeySet ? "set in the engine's environment" : "not set in the engine's environment: calls will fail"}>
      {m.apiKeyEnv} {m.apiKeySet ? <Badge tone="ok">set</Badge> : <Badge tone="bad">not set</Badge>}
    </span>
  );
}

function ModelsTable({ models }: { models: ModelInfo[] }) {
  const checks = useModelsStore(selectChecks);
  return (
    <div className="table-wrap">
      <table className="table" data-testid="models-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>Model</th>
            <th>Where</th>
            <th>API key</th>
            <th>Tool calls</th>
            <th className="num">At once</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {models.map((m) => (
            <ModelRows key={m.name} m={m} check={checks[m.name]} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ModelRows({ m, check }: { m: ModelInfo; check: ModelCheck | undefined }) {
  const busy = check?.busy === true;
  return (
    <>
      <tr data-testid={`model-row-${m.name}`}>
        <td className="mono">{m.name}</td>
        <td>
          <Badge>{m.kind === 'gguf' ? 'GGUF file' : 'endpoint'}</Badge>
        </td>
        <td className="mono">{m.model}</td>
        <td className="mono small">{m.kind === 'gguf' ? m.file : m.baseUrl}</td>
        <td>{keyCell(m)}</td>
        <td>{m.toolCalls}</td>
        <td className="num">{m.maxConcurrency}</td>
        <td className="actions">
          <button className="btn tiny" disabled={busy} onClick={() => void testModel(m.name)} data-testid={`model-test-${m.name}`}>
            {busy && check?.kind === 'test' ? 'Testing…' : 'Test'}
          </button>
          {m.kind === 'endpoint' && (
            <button
              className="btn tiny"
              disabled={busy}
              onClick={() => void listServerModels(m.name)}
              data-testid={`model-server-models-${m.name}`}
              title="GET /v1/models"
            >
              Server models
            </button>
          )}
          <button
            className="btn tiny"
            disabled={busy}
            onClick={() => {
              if (window.confirm(`Remove ${m.name}? Its cached answers go; the call records of stored episodes stay.`)) void removeModel(m.name);
            }}
            data-testid={`model-remove-${m.name}`}
          >
            Remove
          </button>
        </td>
      </tr>
      {check && !check.busy && (
        <tr>
          <td colSpan={8} data-testid={`model-check-${m.name}`}>
            <CheckResult check={check} />
          </td>
        </tr>
      )}
    </>
  );
}

function CheckResult({ check }: { check: ModelCheck }) {
  if (check.busy) return null;
  if ('error' in check)
    return (
      <div className="inline-error">
        {check.kind === 'test' ? 'Test failed' : "Could not list the server's models"}: {check.error}
      </div>
    );
  if ('models' in check) {
    return (
      <div>
        Server models:{' '}
        <span className="mono" data-testid="server-models">
          {check.models.join(', ') || 'none'}
        </span>
      </div>
    );
  }
  const r = check.result;
  return (
    <div className="model-test">
      <div>
        <Badge tone={r.parsed ? 'ok' : 'bad'}>{r.parsed ? 'round trip ok' : 'reply does not parse'}</Badge>{' '}
        <span data-testid="model-test-latency">{formatCount(Math.round(r.latencyMs))} ms</span> ·{' '}
        <span data-testid="model-test-tokens">
          {formatCount(r.tokensIn)} tokens in, {formatCount(r.tokensOut)} out
        </span>
        {r.tokensPerS !== null && (
          <>
            {' '}
            · <span data-testid="model-test-tps">{r.tokensPerS.toFixed(1)} tokens/s</span>
          </>
        )}{' '}
        · <span className="mono">{r.model}</span> · finish {r.finishReason}
      </div>
      <div className="muted small">
        {r.parsed ? (
          <>
            DA turn: <span className="mono">{r.parsed.action_type}</span> {r.parsed.content}
          </>
        ) : (
          <>Does not parse ({r.parseError}): the format penalty a match would give it.</>
        )}
      </div>
      <div className="muted small">Server models: {Array.isArray(r.serverModels) ? r.serverModels.join(', ') : r.serverModels}</div>
    </div>
  );
}
