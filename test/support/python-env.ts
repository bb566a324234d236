/**
 * The project's Python environment (.venv, made by `npm run python-env` from trainers/requirements.txt):
 * the real TRL, transformers, gguf, Ray and TensorBoard that the LLM, cluster and tracker tests drive.
 *
 * A test that needs it calls `venvPython()` and fails, naming the command that makes it, when it is
 * missing: such a test never passes by skipping (the issue on LLM roles asks for that loudly).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (from import.meta.url: the Playwright specs load this file as an ES module, where there is no __dirname). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The venv's interpreter (SPARRING_VENV overrides the folder), or an error that says how to make it. */
export function venvPython(): string {
  const venv = process.env.SPARRING_VENV ?? path.join(ROOT, '.venv');
  const python = path.join(venv, 'bin', 'python');
  if (!existsSync(python)) {
    throw new Error(
      `${python} is missing: this test needs the project's Python environment (torch, transformers, trl, gguf, ray, tensorboard). ` +
        'Run `npm run python-env` (scripts/python-env.sh installs trainers/requirements.txt, from the local wheel index where pip is configured with one).',
    );
  }
  return python;
}
