/** Child processes a test starts and leaves running: each is SIGKILLed after every test (afterEach). */
import { afterEach } from 'vitest';

/** The list a test pushes its children's pids to; registered with afterEach in the calling file. */
export function reapChildrenAfterEach(): number[] {
  const children: number[] = [];
  afterEach(() => {
    for (const pid of children.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
  return children;
}
