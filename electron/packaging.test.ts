/**
 * The installer configuration (electron-builder, package.json "build"). Building needs Electron's
 * download, which this machine cannot make; this checks what a build would produce.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UserConfig } from 'vite';
import { RUN_WORKER_BUNDLE } from './engine-host';
import viteConfig from './vite.config';

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '..', 'package.json'), 'utf8')) as {
  build: {
    linux: { target: string[] };
    win: { target: string[] };
    mac: { target: string[] };
    files: string[];
    asarUnpack: string[];
    npmRebuild?: boolean;
    extraMetadata: { main: string };
  };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

describe('packaging config', () => {
  it('targets AppImage and deb on Linux, NSIS on Windows, dmg on macOS', () => {
    expect(pkg.build.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(pkg.build.win.target).toContain('nsis');
    expect(pkg.build.mac.target).toContain('dmg');
  });

  it('ships the built app, renderer and assets, with the main entry inside them', () => {
    for (const f of ['dist/electron/**', 'dist/renderer/**', 'dist/assets/**']) expect(pkg.build.files).toContain(f);
    expect(pkg.build.extraMetadata.main.startsWith('dist/electron/')).toBe(true);
    expect(pkg.scripts.dist).toMatch(/electron-builder/);
  });

  it('unpacks the native modules from the asar archive and rebuilds them for Electron', () => {
    expect(pkg.build.asarUnpack).toEqual(expect.arrayContaining(['**/*.node', 'node_modules/better-sqlite3/**', 'node_modules/onnxruntime-node/bin/**']));
    expect(pkg.build.npmRebuild).not.toBe(false);
    for (const native of ['better-sqlite3', 'onnxruntime-node']) expect(pkg.dependencies[native]).toBeDefined();
  });
});

describe('desktop bundles (electron/vite.config.ts)', () => {
  const build = (viteConfig as (env: { mode: string; command: 'build' }) => UserConfig)({ mode: 'production', command: 'build' }).build!;
  const input = build.rollupOptions!.input as Record<string, string>;
  const output = build.rollupOptions!.output as { entryFileNames: string; chunkFileNames: string };

  it("bundles the runner's worker thread beside the engine process, under the name the engine loads", () => {
    const entry = path.basename(RUN_WORKER_BUNDLE, '.js');
    expect(output.entryFileNames.replace('[name]', entry)).toBe(RUN_WORKER_BUNDLE);
    expect(path.relative(path.resolve(__dirname, '..'), input[entry]!)).toBe(path.join('host', 'coevolution', 'run-worker.ts'));
  });

  it('keeps shared chunks in dist/electron/, where the engine finds ../assets', () => {
    expect(output.chunkFileNames).not.toContain('/');
  });
});
