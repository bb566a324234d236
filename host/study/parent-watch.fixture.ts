// parent-watch.test.ts: a process that watches its parent, says so, then blocks its event loop
// (as a long synchronous train step does) until the watcher ends it.
import { exitWithParent } from './parent-watch';

if (process.argv[2] === 'watch') await exitWithParent();
process.stdout.write('ready\n');
for (;;) Math.sqrt(Math.random()); // never yields: 'disconnect' or a timer could not run
