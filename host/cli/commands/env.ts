/**
 * `sparring env serve`: the world as an OpenEnv environment server for external trainers (TRL,
 * verl; host/env/server.ts). Prints where it listens (with --json: one line `{url, ws, origin,
 * token, role, opponent, db}`; `url` carries the token in its path, so a client that sends no
 * headers — OpenEnv's GenericEnvClient, `openenv validate` — works given just that) and serves
 * until interrupted; finished episodes go to the lab. A token is always required, on loopback too.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_CONFIG } from '../../../core/config';
import { selectScenarios, SCENARIO_SETS } from '../../../core/arena/scenarios';
import type { ScenarioSetName } from '../../../core/arena/scenarios';
import type { Opponent } from '../../../core/env/learner-episode';
import { withAdversityProfile } from '../../../core/world/adversities';
import { runWorld } from '../../coevolution/gym-export';
import { ENV_DEFAULTS, LOOPBACK_HOSTS, newEnvToken, startEnvServer } from '../../env/server';
import { openSqliteStore } from '../../store/sqlite-store';
import { labDomainAt } from '../lab-domain';
import { positiveInt, UsageError } from '../options';
import { resolveCa, resolveDa } from '../policies';
import { normaliseOrigin } from '../../request-guard';
import type { GlobalOptions } from '../global-options';

interface EnvServeOptions {
  allowOrigin?: string[];
  role: 'DA' | 'CA';
  opponent: string;
  scenarios: ScenarioSetName;
  adversities: boolean;
  port: number;
  host: string;
  token?: string;
  idleTimeout: number;
  maxSessions: number;
  maxBodyBytes: number;
  run?: string;
  parentPid?: number;
}

function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError(`--port must be 0–65535 (0: any free port), got "${value}".`);
  return Number(value);
}

/** The --allow-origin values as browsers send origins; a bad one is a usage error naming it. */
function allowOrigins(values: string[]): string[] {
  try {
    return values.map(normaliseOrigin);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function registerEnv(program: Command, globals: () => GlobalOptions): void {
  const env = program.command('env').description('the world as an environment server for external trainers (OpenEnv protocol)');
  env
    .command('serve')
    .description(
      'serve the banking world over OpenEnv (HTTP /reset /step /state /schema /health and WebSocket /ws): the --role learns against a frozen --opponent',
    )
    .addOption(new Option('--role <role>', 'the learning role').choices(['DA', 'CA']).makeOptionMandatory())
    .option('--opponent <spec>', 'the frozen opponent of the other role: scripted | latest | a checkpoint name', 'scripted')
    .addOption(new Option('--scenarios <set>', 'the scenarios a reset may name').choices(SCENARIO_SETS).default('arena'))
    .option('--adversities', 'MADS adversities on (scenarios without their own get the default profile)', false)
    .option('--port <n>', 'TCP port (0: any free port)', portNumber, 7318)
    .option('--host <host>', 'address to listen on; anything but loopback exposes the world to your network (the token still guards it)', '127.0.0.1')
    .option(
      '--token <token>',
      'the token every request but /health needs (default: a fresh random one, on loopback too): in the printed URL\'s path (/token/<token>/…), as "Authorization: Bearer <token>", or ?token=',
    )
    .option('--allow-origin <origin...>', 'browser origins (http://host:port) allowed to call; by default web pages of other origins are refused 403')
    .option('--run <run>', "play in a run's world (its config, adversities, and the bank its training CAs speak): what `gym export` resets need")
    .option('--idle-timeout <s>', 'close a session after this many seconds without a message', positiveInt('--idle-timeout'), ENV_DEFAULTS.idleTimeoutMs / 1000)
    .option('--max-sessions <n>', 'sessions open at once', positiveInt('--max-sessions'), ENV_DEFAULTS.maxSessions)
    .option('--max-body-bytes <n>', 'largest request body or WebSocket message', positiveInt('--max-body-bytes'), ENV_DEFAULTS.maxBodyBytes)
    .option(
      '--parent-pid <pid>',
      'stop when this process is gone (a run serving its managed gym, killed, leaves no server behind)',
      positiveInt('--parent-pid'),
    )
    .action(async (opts: EnvServeOptions) => {
      const g = globals();
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const lab = labDomainAt(g.db);
      let domain = opts.adversities ? withAdversityProfile(lab) : lab;
      let caDomain = domain;
      let config = DEFAULT_CONFIG;
      if (opts.run) {
        const store = openSqliteStore(g.db);
        try {
          const world = runWorld(store, lab, opts.run);
          ({ domain, caDomain, config } = world);
          opts.adversities = world.adversities;
        } catch (e) {
          throw new UsageError(`--run ${opts.run}: ${(e as Error).message}`);
        } finally {
          store.close();
        }
      }
      const scenarios = selectScenarios(domain, opts.scenarios);
      if (scenarios.length === 0) throw new UsageError(`--scenarios ${opts.scenarios}: the lab has no such scenarios`);
      const opponent: Opponent =
        opts.role === 'DA'
          ? { role: 'CA', policy: await resolveCa(opts.opponent, caDomain, g) }
          : { role: 'DA', policy: await resolveDa(opts.opponent, domain, g) };
      const token = opts.token ?? newEnvToken();
      if (!LOOPBACK_HOSTS.has(opts.host)) log(`env serve: WARNING: listening on ${opts.host}, not on loopback; every request but /health needs the token`);
      const store = openSqliteStore(g.db);
      let server;
      try {
        server = await startEnvServer({
          domain,
          config,
          opponent,
          opponentSpec: opts.opponent,
          scenarios,
          scenarioSet: opts.scenarios,
          adversities: opts.adversities,
          store,
          host: opts.host,
          port: opts.port,
          seed: g.seed,
          idleTimeoutMs: opts.idleTimeout * 1000,
          maxSessions: opts.maxSessions,
          maxBodyBytes: opts.maxBodyBytes,
          log,
          token,
          ...(opts.allowOrigin ? { allowOrigins: allowOrigins(opts.allowOrigin) } : {}),
        });
      } catch (err) {
        store.close();
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new UsageError(`port ${opts.port} on ${opts.host} is in use; pick another with --port (0: any free port)`);
        if (/a token/.test((err as Error).message)) throw new UsageError(`--token: ${(err as Error).message}`);
        throw err;
      }
      const doc = {
        url: server.url,
        ws: server.wsUrl,
        origin: server.origin,
        token: server.token,
        role: opts.role,
        opponent: opts.opponent,
        scenarios: opts.scenarios,
        adversities: opts.adversities,
        db: g.db,
      };
      if (g.json) process.stdout.write(`${JSON.stringify(doc)}\n`);
      else {
        process.stdout.write(
          `Sparring environment (OpenEnv): the ${opts.role} learns against ${opponent.role} "${opts.opponent}" on ${scenarios.length} ${opts.scenarios} scenarios` +
            `${opts.adversities ? ' with adversities' : ''}\n  URL       ${server.url}\n` +
            `            (the base URL for any OpenEnv client: POST /reset, POST /step, GET /state, GET /schema, GET /openapi.json, POST /mcp, WebSocket /ws;\n` +
            `             it carries the token, so keep it private; or send "Authorization: Bearer <token>" to ${server.origin})\n` +
            `  WebSocket ${server.wsUrl}\n  token     ${server.token}\n  episodes are stored in ${g.db}, one match per session (env-<session>)\n`,
        );
      }
      log('env serve: Ctrl-C stops the server');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
        if (opts.parentPid !== undefined) {
          const pid = opts.parentPid;
          const watch = setInterval(() => {
            try {
              process.kill(pid, 0);
            } catch {
              clearInterval(watch);
              resolve();
            }
          }, 1000);
          watch.unref();
        }
      });
      await server.close();
      store.close();
    });
}
