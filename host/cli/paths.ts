/** Where a lab lives when the user does not say (`--db` or SPARRING_DB override it), and checks on a lab path. */
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './options';

export function defaultLabPath(): string {
  return process.env.SPARRING_DB || dataDirLabPath();
}

/** The lab in the platform's data directory: the one place Sparring creates a folder unasked. */
export function dataDirLabPath(): string {
  const home = os.homedir();
  const base =
    process.platform === 'win32'
      ? (process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'))
      : process.platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : (process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'));
  return path.join(base, 'Sparring', 'lab.db');
}

/**
 * Refuse a lab path whose folder is missing (a typo would quietly start a new, empty lab) unless
 * `create` is set or it is the data directory's own lab, and a path through a file
 * (`/etc/hostname/x.db`), with one line that says which, instead of SQLite's or mkdir's raw error.
 */
export function checkLabPath(db: string, o: { create: boolean; option?: string }): void {
  if (db === ':memory:' || db === '') return;
  const option = o.option ?? '--db';
  const folder = path.dirname(path.resolve(db));
  // The nearest ancestor that exists: a file there means no folder can be made below it.
  let at = folder;
  for (;;) {
    const st = statSync(at, { throwIfNoEntry: false });
    if (st) {
      if (!st.isDirectory()) throw new UsageError(`${option} ${db}: ${at} is a file, not a folder, so the lab cannot be there`);
      break;
    }
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  if (at !== folder && !o.create && path.resolve(db) !== path.resolve(dataDirLabPath())) {
    throw new UsageError(`${option} ${db}: the folder ${folder} does not exist; check the path, or add --create to start a new lab there`);
  }
}
