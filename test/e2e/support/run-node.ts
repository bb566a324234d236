/** Run a node script (the CLI, a support script) to its end from a spec, as another process would. */
import { spawn } from 'node:child_process';
import { ROOT } from './servers';

/** `node ARGS` in the repository root; resolves with its stdout and stderr, rejects naming the command, its exit code and its stderr. */
export function runNode(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ stdout, stderr }) : reject(new Error(`node ${args.join(' ')} exited ${code}:\n${stderr}`))));
  });
}

/** `node ARGS`; its stdout's first line as JSON (the support scripts print one JSON line). */
export async function runNodeJson(args: readonly string[]): Promise<unknown> {
  const { stdout } = await runNode(args);
  return JSON.parse(stdout.split('\n')[0]!);
}
