// Opt-in: fetch onnxruntime-node's CUDA binaries (Linux x64) on a machine that can reach NuGet.
// package.json's allowScripts keeps npm 11 from running onnxruntime-node's install script, so a
// normal install never tries this (an `.npmrc` key for it made npm warn on every call).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const dir = path.dirname(require.resolve('onnxruntime-node/package.json'));
const r = spawnSync(process.execPath, [path.join(dir, 'script', 'install.js')], {
  stdio: 'inherit',
  env: { ...process.env, npm_config_onnxruntime_node_install: 'cuda12', ONNXRUNTIME_NODE_INSTALL: 'cuda12' },
});
process.exit(r.status ?? 1);
