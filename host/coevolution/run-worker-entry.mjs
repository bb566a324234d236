// Worker threads do not inherit tsx's loader when it was registered through its API (bin/sparring.js),
// so the runner's worker registers it before loading the TypeScript module.
const { register } = await import('tsx/esm/api');
register();
await import('./run-worker.ts');
