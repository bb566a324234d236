/** Where a lab lives when the user does not say (`--db` or SPARRING_DB override it). */
import os from 'node:os';
import path from 'node:path';

export function defaultLabPath(): string {
  if (process.env.SPARRING_DB) return process.env.SPARRING_DB;
  const home = os.homedir();
  const base =
    process.platform === 'win32'
      ? (process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'))
      : process.platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : (process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'));
  return path.join(base, 'Sparring', 'lab.db');
}
