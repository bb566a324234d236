/** Paths into a world's state as world.json's steps write them: `accounts[0].transactions`, `cards[0].lastDecline.reason`. */

const parsed = new Map<string, readonly (string | number)[]>();

/** `accounts[0].transactions` → ['accounts', 0, 'transactions'] (parsed once per path). */
export function parseStatePath(path: string): readonly (string | number)[] {
  let out = parsed.get(path);
  if (out) return out;
  const keys: (string | number)[] = [];
  for (const m of path.matchAll(/([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)) keys.push(m[1] ?? Number(m[2]));
  out = Object.freeze(keys);
  if (parsed.size < 10_000) parsed.set(path, out);
  return out;
}
