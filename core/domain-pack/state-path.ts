/** Paths into a world's state as world.json's steps write them: `accounts[0].transactions`, `cards[0].lastDecline.reason`. */

/** `accounts[0].transactions` → ['accounts', 0, 'transactions']. */
export function parseStatePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)) out.push(m[1] ?? Number(m[2]));
  return out;
}
