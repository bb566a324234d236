/**
 * A study worker ends with its parent (issue 51): the runner's IPC channel closing ('disconnect')
 * only reaches a worker whose event loop is free, and a worker inside a long synchronous train
 * step outlived a `kill -9` of its parent by seconds, still writing to the lab. A watcher thread
 * (its own event loop) reads the process's parent pid every `intervalMs`; when the parent is gone
 * (the worker was re-parented) it kills the worker at once, which leaves its run at its last phase
 * boundary, as a killed study leaves every run (`sparring study --resume` continues it).
 */
import { Worker } from 'node:worker_threads';

const WATCHER = `
const { workerData, parentPort } = require('node:worker_threads');
const check = () => {
  if (process.ppid !== workerData.parent) process.kill(workerData.pid, 'SIGKILL');
};
check();
setInterval(check, workerData.intervalMs);
parentPort.postMessage('watching');
`;

/**
 * Start the watcher thread (it does not keep the process alive). The promise settles once the
 * thread has made its first check: a thread still starting when the caller blocks its event loop
 * would start late on a loaded machine, so a caller about to block awaits it first.
 */
export function exitWithParent(intervalMs = 100): Promise<void> {
  const w = new Worker(WATCHER, { eval: true, workerData: { parent: process.ppid, pid: process.pid, intervalMs } });
  w.unref();
  return new Promise((resolve, reject) => {
    w.once('message', () => resolve());
    w.once('error', reject);
  });
}
