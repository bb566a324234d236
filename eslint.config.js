// Layer boundaries at error level (DESIGN.md §3): core/ is runtime-free and imports no host
// package; the renderer sees only types from core/contract/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const hostPackages = ['electron', 'react', 'react-dom', 'zustand', 'd3', 'd3-*', 'better-sqlite3', 'onnxruntime-node', 'onnxruntime-*', 'ws', 'commander', 'cli-progress', 'csv-parse', 'csv-parse/*'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'coverage/', 'test-results/', '.artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['core/**/*.ts'],
    ignores: ['core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: hostPackages, message: 'core/ is runtime-free: host packages belong in host/, models/ or electron/ (DESIGN.md §3).' },
            { regex: '^node:', message: 'core/ is runtime-free: no node: modules (DESIGN.md §3).' },
            { regex: '^(\\.\\./)+(models|host|electron|renderer)(/|$)', message: 'core/ must not import the hosts or models/; declare a port instead.' },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
);
