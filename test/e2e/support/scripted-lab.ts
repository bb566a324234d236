/**
 * A spec's own lab: scripted matches played by the CLI into a temporary lab file, `sparring serve`
 * on it, and a page open on the app. For specs that must not touch the shared lab of the global
 * setup (whose run and match ids the later specs count on).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from '@playwright/test';
import { LabPage } from '../pages/lab-page';
import { startServer, stopServer } from './servers';

const BIN = path.join('bin', 'sparring.js');

export interface ScriptedLab {
  page: Page;
  lab: LabPage;
  /** Closes the page, stops the server and removes the lab's folder. */
  close(): Promise<void>;
}

/** One scripted match (scripted DA against scripted CA) per seed, `episodes` per scenario, then the app on that lab. */
export async function openScriptedLab(browser: Browser, name: string, seeds: readonly string[], episodes: number): Promise<ScriptedLab> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `sparring-e2e-${name}-`));
  const db = path.join(dir, 'lab.db');
  for (const seed of seeds) {
    await promisify(execFile)(process.execPath, [
      BIN,
      'match',
      '--da',
      'scripted',
      '--ca',
      'scripted',
      '--episodes',
      String(episodes),
      '--db',
      db,
      '--seed',
      seed,
      '--json',
    ]);
  }
  const s = await startServer(`serve-${name}`, [BIN, 'serve', '--db', db, '--port', '0', '--json']);
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  const lab = new LabPage(page);
  await lab.open(s.url);
  return {
    page,
    lab,
    async close() {
      await page.close();
      await stopServer(s.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
