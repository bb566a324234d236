/**
 * docs/cli.md is what the commands' own `--help` prints (scripts/cli-docs.ts writes it): a changed
 * option, default or description makes this fail until `npm run docs:cli` is run again. The check
 * runs as its own process under tsx, as `npm run docs:cli -- --check` does (in vitest, transforming
 * every command's module costs several times more).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPT = path.join(ROOT, 'scripts', 'cli-docs.ts');

function generate(...args: string[]): { code: number; out: string } {
  try {
    return {
      code: 0,
      out: execFileSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    };
  } catch (e) {
    const err = e as { status: number | null; stdout: string; stderr: string };
    return { code: err.status ?? -1, out: `${err.stdout}${err.stderr}` };
  }
}

describe('docs/cli.md', () => {
  it("is every command's --help as the commands print it now (npm run docs:cli writes it)", () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    // Every command and sub-command has its section: the walk reached the whole program.
    for (const name of ['sparring run', 'sparring study estimate', 'sparring knobs accept', 'sparring env serve', 'sparring lab merge']) {
      expect(doc).toContain(`\n## ${name}\n`);
    }
    expect(doc).toContain('Usage: sparring study estimate [options] <study>');
    const check = generate('--check');
    expect(check.out).toBe('');
    expect(check.code).toBe(0);
  });
});
