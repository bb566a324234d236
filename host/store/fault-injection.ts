/**
 * Test-only fault injection (issue 51's fault-injection check, test/fault-injection.test.ts):
 * `SPARRING_KILL_AT=KIND:N` makes the process SIGKILL itself at its Nth write of KIND, inside the
 * write, as a power cut or `kill -9` would land there. KIND is one of
 *   metric      just after a metric point is stored (its phase not yet ended),
 *   checkpoint  inside a checkpoint's save transaction (its blob written, its row not),
 *   snapshot    inside a phase boundary's transaction (the snapshot written, its metric marks not),
 *   episode     inside a match's or an episode's save transaction.
 * Unset (always, outside that test), every fault point is one comparison.
 */
export type FaultKind = 'metric' | 'checkpoint' | 'snapshot' | 'episode';

const plan = new Map<string, number>(
  (process.env.SPARRING_KILL_AT ?? '')
    .split(',')
    .filter(Boolean)
    .map((p) => {
      const [kind, n] = p.split(':');
      return [kind!, Number(n)] as const;
    }),
);
const seen = new Map<string, number>();

/** Count one write of `kind`; the planned one kills the process. */
export function faultPoint(kind: FaultKind): void {
  if (plan.size === 0) return;
  const n = (seen.get(kind) ?? 0) + 1;
  seen.set(kind, n);
  if (plan.get(kind) === n) process.kill(process.pid, 'SIGKILL');
}
