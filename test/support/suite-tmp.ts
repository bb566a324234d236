/**
 * Vitest's global setup: the suite's temporary files (labs, exports, servers' files, the
 * processes tests spawn) go under one fresh directory, removed when the suite ends. Tests call
 * `os.tmpdir()` as they like; `TMPDIR` points it here for every worker and child process. Without
 * it a suite run left about 1 GB of labs in /tmp, and a machine that ran it often filled its disk
 * (SQLite then refuses writes mid-run). SPARRING_KEEP_TEST_TMP=1 keeps the directory to look into.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-suite-'));
  process.env.TMPDIR = dir;
  return () => {
    if (process.env.SPARRING_KEEP_TEST_TMP === '1') process.stderr.write(`[suite] temporary files kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
