/**
 * The project's modules form layers, not circles: the import graph of every TypeScript file
 * (core/, models/, host/, electron/, renderer/src/, scripts/, test/, the root configs) has no
 * cycle, and core/ sits below its typed contract (core/contract/ imports core, never the reverse).
 *
 * Every relative import counts: `import type` and `export … from` too (a type-only circle is
 * still two modules that cannot be read, moved or tested apart), and `import('…')` (a lazy
 * import hides a circle, it does not break it). Package imports are outside the graph.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIRS = ['core', 'models', 'host', 'electron', 'renderer/src', 'scripts', 'test', 'trainers'];
const SKIP = new Set(['node_modules', 'dist', 'out', 'test-results', '.venv']);
const EXTENSIONS = ['.ts', '.tsx'];

/** Every .ts/.tsx file under DIRS (and at the root), as a path relative to the root with '/'. */
function sourceFiles(): string[] {
  const out: string[] = readdirSync(ROOT).filter((f) => EXTENSIONS.some((e) => f.endsWith(e)) && !f.endsWith('.d.ts'));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name)) walk(rel);
      } else if (EXTENSIONS.some((e) => entry.name.endsWith(e)) && !entry.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const dir of DIRS) if (existsSync(path.join(ROOT, dir))) walk(dir);
  return out.sort();
}

/** The project file a relative specifier names (bundler resolution: the extension may be left out, or a folder's index); null for a package or a non-TS file. */
function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const stem = base.replace(/\.(js|jsx|mjs)$/, '');
  const candidates = [base, ...EXTENSIONS.map((e) => stem + e), ...EXTENSIONS.map((e) => `${base}/index${e}`)];
  for (const c of candidates) {
    const abs = path.join(ROOT, c);
    if (EXTENSIONS.some((e) => c.endsWith(e)) && existsSync(abs) && statSync(abs).isFile()) return c;
  }
  return null;
}

/** Each file's relative imports (static, type-only, re-exports and `import()`), resolved to project files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      const target = resolve(file, fileName);
      if (target !== null) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The graph's cycles, each as a path `a → b → a`: a depth-first walk in name order reports one
 * cycle per edge that leads back into the walk's own path. Removing those edges leaves no cycle,
 * so none is missed, and each edge of a circle is named at most once.
 */
function cycles(graph: Map<string, string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const s = state.get(next);
      if (s === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

describe('import graph', () => {
  const graph = importGraph();

  it('reads the project: core, the hosts and the renderer are in it, with their imports', () => {
    expect(graph.size).toBeGreaterThan(500);
    expect(graph.get('host/cli/main.ts')!.length).toBeGreaterThan(5);
    expect(graph.get('renderer/src/main.tsx')).toBeDefined();
  });

  it('finds a planted cycle (type-only imports and re-exports count)', () => {
    const planted = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', ['d.ts']],
    ]);
    expect(cycles(planted)).toEqual(['a.ts → b.ts → c.ts → a.ts', 'd.ts → d.ts']);
    const info = ts.preProcessFile("import type { A } from './a';\nexport { B } from './b';\nconst c = await import('./c');\n", true, true);
    expect(info.importedFiles.map((f) => f.fileName)).toEqual(['./a', './b', './c']);
  });

  it('has no cycle', () => {
    const found = cycles(graph);
    if (found.length > 0) console.log(`${found.length} import cycles:\n${found.join('\n')}`);
    expect(found).toEqual([]);
  });

  it('core/ does not import core/contract/ (the contract sits above core)', () => {
    const upward = [...graph]
      .filter(([file]) => file.startsWith('core/') && !file.startsWith('core/contract/'))
      .flatMap(([file, targets]) => targets.filter((t) => t.startsWith('core/contract/')).map((t) => `${file} → ${t}`));
    expect(upward).toEqual([]);
  });
});
