#!/usr/bin/env node
// The `sparring` command: runs the TypeScript CLI through tsx (no build step needed).
process.env.ORT_DISABLE_TELEMETRY ??= '1';
const { register } = await import('tsx/esm/api');
register();
await import('../host/cli/main.ts');
