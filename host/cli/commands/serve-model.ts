/**
 * `sparring serve-model CHECKPOINT`: a builtin DA or CA checkpoint as an OpenAI-compatible
 * endpoint (`host/llm/serve-model.ts`); a name starting with CA, or `--role CA`, serves a customer. Prints the base URL and the token (or `{baseUrl, token, model}`
 * with --json) and serves until interrupted.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { BuiltinCa } from '../../../models/builtin-ca';
import { BuiltinDa } from '../../../models/builtin-da';
import { serveModel } from '../../llm/serve-model';
import { labDomainAt } from '../lab-domain';
import { daModelFor, resolveCa } from '../policies';
import { UsageError } from '../options';
import { normaliseOrigin } from '../../request-guard';
import type { GlobalOptions } from '../global-options';

interface ServeModelOptions {
  allowOrigin?: string[];
  port: number;
  host: string;
  token: string | boolean;
  role?: 'DA' | 'CA';
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

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

export function registerServeModel(program: Command, globals: () => GlobalOptions): void {
  program
    .command('serve-model')
    .argument('<checkpoint>', 'a DA checkpoint (DA2, latest, sft) or a CA checkpoint (CA1; latest with --role CA)')
    .description('a builtin DA or CA checkpoint as an OpenAI-compatible chat-completions endpoint (the DA with tool calling)')
    .addOption(new Option('--role <role>', 'which seat the checkpoint plays (default: CA for a name starting with CA, else DA)').choices(['DA', 'CA']))
    .option('--port <n>', 'TCP port (0: any free port)', portNumber, 8317)
    .option('--host <host>', 'address to listen on; anything but loopback exposes the model to your network', '127.0.0.1')
    .option('--token <token>', 'the bearer token clients must send (default: a fresh random one)')
    .option('--no-token', 'accept requests without a token (explicit opt-out)')
    .option('--allow-origin <origin...>', 'browser origins (http://host:port) allowed to call; by default web pages of other origins are refused 403')
    .action(async (checkpoint: string, opts: ServeModelOptions) => {
      const g = globals();
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const role = opts.role ?? (/^CA/.test(checkpoint) ? 'CA' : 'DA');
      if (checkpoint === 'scripted') throw new UsageError(`serve-model serves a builtin checkpoint (DA2, latest, sft, CA1); got "${checkpoint}"`);
      if (role === 'CA' && checkpoint === 'sft') throw new UsageError('--role CA: "sft" names a DA; give a CA checkpoint (CA1, or latest)');
      const domain = labDomainAt(g.db);
      let policy: { da: BuiltinDa } | { ca: BuiltinCa };
      let model: { dispose(): Promise<void> };
      if (role === 'CA') {
        const ca = await resolveCa(checkpoint, domain, g);
        if (!(ca instanceof BuiltinCa)) throw new UsageError(`serve-model serves a builtin CA checkpoint; "${checkpoint}" names an LLM endpoint`);
        policy = { ca };
        model = ca.model;
      } else {
        const m = await daModelFor(checkpoint, domain, g);
        policy = { da: new BuiltinDa(m, { name: checkpoint }) };
        model = m;
      }
      if (!LOOPBACK.has(opts.host)) log(`sparring serve-model: WARNING: listening on ${opts.host}, not on loopback.`);
      const token = opts.token === false ? null : typeof opts.token === 'string' ? opts.token : undefined;
      let served;
      try {
        served = await serveModel({
          ...policy,
          modelId: checkpoint,
          host: opts.host,
          port: opts.port,
          token,
          ...(opts.allowOrigin ? { allowOrigins: allowOrigins(opts.allowOrigin) } : {}),
        });
      } catch (err) {
        await model.dispose();
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new UsageError(`port ${opts.port} on ${opts.host} is in use; pick another with --port (0: any free port)`);
        throw err;
      }
      if (g.json) process.stdout.write(`${JSON.stringify({ baseUrl: served.baseUrl, token: served.token, model: checkpoint, role })}\n`);
      else {
        process.stdout.write(`${checkpoint} (${role}) served at ${served.baseUrl}\n`);
        if (served.token)
          process.stdout.write(
            `token: ${served.token}\n  export SPARRING_MODEL_TOKEN=${served.token}\n  npx sparring models add NAME --base-url ${served.baseUrl} --model ${checkpoint} --api-key-env SPARRING_MODEL_TOKEN\n`,
          );
      }
      log('sparring serve-model: Ctrl-C stops the server');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await served.close();
      await model.dispose();
    });
}
