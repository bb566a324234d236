// A forked study worker: registers tsx (a fork does not inherit the parent's loader when it was
// registered through its API, as bin/sparring.js does) before loading the TypeScript module.
const { register } = await import('tsx/esm/api');
register();
await import('./study-worker.ts');
