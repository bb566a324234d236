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
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.parent) process.kill(workerData.pid, 'SIGKILL');
}, workerData.intervalMs);
`;

/** Start the watcher thread (it does not keep the process alive). */
export function exitWithParent(intervalMs = 100): void {
  const w = new Worker(WATCHER, { eval: true, workerData: { parent: process.ppid, pid: process.pid, intervalMs } });
  w.unref();
}
