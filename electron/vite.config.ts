// Bundles the desktop shell into dist/electron/: main.js, engine-process.js and the runner's
// worker thread run-worker.js (ESM, Node dependencies left to node_modules; shared chunks beside
// them, since the engine finds assets/ relative to its code) and preload.cjs (CommonJS: sandboxed preloads cannot load
// ES modules). `--mode preload` builds the preload; the default builds the other two.
// The engine reads assets/ relative to its bundle, so they are copied to dist/assets/.
import { cpSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const external = ['electron', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default defineConfig(({ mode }) =>
  mode === 'preload'
    ? {
        root,
        build: {
          outDir: path.join(root, 'dist', 'electron'),
          emptyOutDir: false,
          target: 'node20',
          minify: false,
          rollupOptions: {
            input: path.join(root, 'electron', 'preload.ts'),
            external,
            output: { format: 'cjs', entryFileNames: 'preload.cjs' },
          },
        },
      }
    : {
        root,
        build: {
          ssr: true,
          outDir: path.join(root, 'dist', 'electron'),
          emptyOutDir: false,
          target: 'node20',
          minify: false,
          sourcemap: true,
          rollupOptions: {
            input: {
              main: path.join(root, 'electron', 'main.ts'),
              'engine-process': path.join(root, 'electron', 'engine-process.ts'),
              'run-worker': path.join(root, 'host', 'coevolution', 'run-worker.ts'),
            },
            external,
            output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
          },
        },
        plugins: [
          {
            name: 'sparring-copy-assets',
            closeBundle() {
              cpSync(path.join(root, 'assets'), path.join(root, 'dist', 'assets'), { recursive: true });
            },
          },
        ],
      },
);
