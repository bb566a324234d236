// The renderer's build (web mode and Electron load the same output): `npm run build:renderer`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: path.join(here, 'renderer'),
  // Relative asset URLs: the same build loads from the web server and from Electron's app protocol.
  base: './',
  plugins: [react()],
  build: {
    outDir: path.join(here, 'dist', 'renderer'),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
  },
});
