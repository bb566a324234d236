/** A fresh lab holding one run R1 in a given status and with a given lease owner, as a killed or waiting run leaves it. */
import path from 'node:path';
import { PRESETS } from '../../core/presets';
import { openSqliteStore } from '../../host/store/sqlite-store';

export interface LeaseOwner {
  host: string;
  pid: number;
  heartbeatAt: string;
}

/** Writes lab file `file` with run R1 (`status`, the preset's config) and its owner, or none. */
export function labWithRun(file: string, status: 'created' | 'running', preset: 'quick' | 'smoke', owner: LeaseOwner | null): string {
  const store = openSqliteStore(path.resolve(file));
  const now = new Date().toISOString();
  store.db
    .prepare(
      'INSERT INTO runs (id, created_at, updated_at, status, seed, config_json, preset, owner_host, owner_pid, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    .run('R1', now, now, status, 1, JSON.stringify(PRESETS[preset].config), preset, owner?.host ?? null, owner?.pid ?? null, owner?.heartbeatAt ?? null);
  store.close();
  return file;
}
