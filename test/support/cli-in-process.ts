/**
 * Run a `sparring` command inside the test process: the same commander program as
 * `bin/sparring.js` (host/cli/main.ts, imported afresh so its options and module state start
 * clean), with process.argv set, stdout and stderr captured and process.exit turned into the
 * exit code. It saves the ~1–3 s a child process spends starting node, tsx and onnxruntime, so a
 * test file that runs many commands keeps one true subprocess test (bin/sparring.js, exit codes
 * through the process boundary) and runs the rest here.
 *
 * Calls must not overlap (they share process.argv, process.env and the two streams); vitest runs
 * the tests of a file one after another unless told otherwise.
 */
import { vi } from 'vitest';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

class ExitCalled extends Error {
  constructor(readonly exitCode: number) {
    super(`process.exit(${exitCode})`);
  }
}

function capture(stream: NodeJS.WriteStream, into: string[]): () => void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- only put back on the same stream below, never called detached
  const original = stream.write;
  stream.write = (chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  };
  return () => {
    stream.write = original;
  };
}

/**
 * `sparring ...args` in this process; `env` is set, and `cwd` is the working directory
 * (process.chdir: the forks pool allows it), for the command's duration only.
 */
export async function sparringInProcess(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const argv = process.argv;
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  process.argv = [process.execPath, 'sparring', ...args];
  process.exitCode = undefined;
  const dir = process.cwd();
  if (cwd) process.chdir(cwd);
  const exit = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
    throw new ExitCalled(code ?? 0);
  }) as typeof process.exit);
  const restoreOut = capture(process.stdout, out);
  const restoreErr = capture(process.stderr, err);
  let code: number;
  try {
    vi.resetModules();
    await import('../../host/cli/main');
    code = typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (!(e instanceof ExitCalled)) throw e;
    code = e.exitCode;
  } finally {
    restoreOut();
    restoreErr();
    exit.mockRestore();
    process.argv = argv;
    process.chdir(dir);
    process.exitCode = undefined;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}
