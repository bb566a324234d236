/**
 * The models saved in the lab (Models screen): the list, and per model the last round trip or
 * server listing, or why it failed. Adding or removing one reloads `engine/info`, whose policy
 * lists feed the Arena, Play and Experiments pickers.
 */
import { create } from 'zustand';
import type { ModelAddArgs, ModelAddGgufArgs, ModelInfo, ModelTestResult } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';
import { loadEngineInfo } from '../../engine/engine-store';
import type { LoadStatus } from '../runs/runs-store';

/** What a model's last check showed: a round trip, a server's models, or an error (with which). */
export type ModelCheck =
  | { kind: 'test'; busy: true }
  | { kind: 'test'; busy: false; result: ModelTestResult }
  | { kind: 'server-models'; busy: true }
  | { kind: 'server-models'; busy: false; models: string[] }
  | { kind: 'test' | 'server-models'; busy: false; error: string };

export interface ModelsState {
  models: ModelInfo[];
  status: LoadStatus;
  error: string | null;
  /** Which form is saving now: the endpoint's or the GGUF file's. */
  adding: AddForm | null;
  /** The last refusal, and which form it answers. */
  addError: { form: AddForm; message: string } | null;
  checks: Record<string, ModelCheck>;
}

export type AddForm = 'endpoint' | 'gguf';

export const useModelsStore = create<ModelsState>()(() => ({ models: [], status: 'idle', error: null, adding: null, addError: null, checks: {} }));

export const selectModels = (s: ModelsState) => s.models;
export const selectModelsStatus = (s: ModelsState) => s.status;
export const selectModelsError = (s: ModelsState) => s.error;
export const selectAdding = (s: ModelsState) => s.adding;
export const selectAddError = (s: ModelsState) => s.addError;
export const selectChecks = (s: ModelsState) => s.checks;

export async function loadModels(): Promise<void> {
  useModelsStore.setState((s) => ({ status: s.models.length ? s.status : 'loading', error: null }));
  try {
    useModelsStore.setState({ models: await request('models/list', undefined), status: 'ready' });
  } catch (err) {
    useModelsStore.setState({ status: 'error', error: errorMessage(err) });
  }
}

/** Save an endpoint; true when saved (the form clears). */
export function addModel(args: ModelAddArgs): Promise<boolean> {
  return saving('endpoint', () => request('models/add', args));
}

/** Save a local GGUF file (the engine hashes it); true when saved (the form clears). */
export function addGgufModel(args: ModelAddGgufArgs): Promise<boolean> {
  return saving('gguf', () => request('models/add-gguf', args));
}

async function saving(form: AddForm, save: () => Promise<unknown>): Promise<boolean> {
  useModelsStore.setState({ adding: form, addError: null });
  try {
    await save();
    await Promise.all([loadModels(), loadEngineInfo()]);
    return true;
  } catch (err) {
    useModelsStore.setState({ addError: { form, message: errorMessage(err) } });
    return false;
  } finally {
    useModelsStore.setState({ adding: null });
  }
}

/** A form changed since its refusal: the refusal no longer describes what is typed, so it goes. */
export function clearAddError(form: AddForm): void {
  if (useModelsStore.getState().addError?.form === form) useModelsStore.setState({ addError: null });
}

export async function removeModel(name: string): Promise<void> {
  try {
    await request('models/remove', { name });
    useModelsStore.setState((s) => {
      const checks = { ...s.checks };
      delete checks[name];
      return { checks };
    });
  } catch (err) {
    useModelsStore.setState({ error: errorMessage(err) });
  }
  await Promise.all([loadModels(), loadEngineInfo()]);
}

function setCheck(name: string, check: ModelCheck): void {
  useModelsStore.setState((s) => ({ checks: { ...s.checks, [name]: check } }));
}

export async function testModel(name: string): Promise<void> {
  setCheck(name, { kind: 'test', busy: true });
  try {
    setCheck(name, { kind: 'test', busy: false, result: await request('models/test', { name }) });
  } catch (err) {
    setCheck(name, { kind: 'test', busy: false, error: errorMessage(err) });
  }
}

export async function listServerModels(name: string): Promise<void> {
  setCheck(name, { kind: 'server-models', busy: true });
  try {
    setCheck(name, { kind: 'server-models', busy: false, models: (await request('models/server-models', { name })).models });
  } catch (err) {
    setCheck(name, { kind: 'server-models', busy: false, error: errorMessage(err) });
  }
}
