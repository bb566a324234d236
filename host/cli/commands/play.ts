/**
 * `sparring play --seat customer|agent`: a person in one seat of an arena episode on the command
 * line, through the engine's play service (the same session logic, drafts and storage as the
 * app's Play screen). Reads the person's moves on stdin, one per line:
 *
 * - customer seat: each line is what the customer says;
 * - agent seat: `/tool NAME {"arg": …}` calls a tool, `/end [words]` ends the call, any other
 *   line is spoken to the customer.
 *
 * A refused move (empty, too long, arguments that fail the tool's schema) is reported on stderr
 * and nothing is stored of it. When stdin ends mid-episode the session stays in the lab as a
 * draft: `--resume ID` continues it. `--fork EPISODE --turn T` takes over a stored episode.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { HumanAction, PlaySeat, PlayTurn, PlayView } from '../../../core/contract/contract';
import { PlayError } from '../../../core/play/human-episode';
import { labDomain } from '../../store/scenario-store';
import { disposeModel } from '../../engine/replay';
import { createPlayService } from '../../engine/play';
import { openSqliteStore } from '../../store/sqlite-store';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { UsageError } from '../options';
import { playLedger, resolveCa, resolveDa } from '../policies';
import type { GlobalOptions } from '../global-options';
import { policyLabel } from '../../format/policy';

interface PlayOptions extends DeviceOptions {
  seat?: string;
  da?: string;
  ca?: string;
  scenario?: string;
  player: string;
  fork?: string;
  turn?: string;
  resume?: string;
}

/** One stdin line of the agent seat as an action. */
export function agentLine(line: string): HumanAction {
  const tool = /^\/tool\s+(\S+)\s*(.*)$/.exec(line);
  if (tool) {
    let args: unknown = {};
    if (tool[2]!.trim() !== '') {
      try {
        args = JSON.parse(tool[2]!);
      } catch (e) {
        throw new PlayError(`/tool ${tool[1]}: the arguments are not valid JSON (${(e as Error).message})`);
      }
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new PlayError(`/tool ${tool[1]}: the arguments must be a JSON object`);
    return { kind: 'tool_call', tool: tool[1]!, args: args as Record<string, unknown> };
  }
  const end = /^\/end\b\s*(.*)$/.exec(line);
  if (end) return { kind: 'end_call', text: end[1]! };
  return { kind: 'speak', text: line };
}

function turnLine(t: PlayTurn): string {
  const who = t.role === 'customer' ? 'customer' : 'agent';
  if (t.tool) {
    const r = t.toolResult;
    const result = r ? (r.ok ? JSON.stringify(r.data) : `error ${r.error.code}: ${r.error.message}`) : '';
    return `${who} → ${t.tool} ${JSON.stringify(t.toolArgs)}\n    ${result}`;
  }
  if (t.parseError) return `${who}: (unparseable: ${t.parseError})`;
  return `${who}${t.actionType === 'end_call' ? ' (ends the call)' : ''}: ${t.said ?? ''}`;
}

export function registerPlay(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('play')
      .description('play one seat of an episode yourself: your moves on stdin, one per line; stored like an arena episode, marked as human-played')
      .option('--seat <seat>', 'customer (against a DA) | agent (against a CA)')
      .option('--da <spec>', 'the DA you talk to in the customer seat (scripted | latest | a DA checkpoint)', 'scripted')
      .option('--ca <spec>', 'the CA calling in when you are the agent (scripted | latest | a CA checkpoint)', 'scripted')
      .option('--scenario <id>', 'scenario id; default: Sparring draws one (and its hidden intent) from --seed')
      .option('--player <name>', 'your name, stored with the episode', process.env.USER || 'player')
      .option('--fork <episode>', 'take over this stored episode (with --turn)')
      .option('--turn <t>', 'the first turn you play instead of the stored one')
      .option('--resume <session>', 'continue an unfinished session'),
  ).action(async (opts: PlayOptions) => {
    const g = globals();
    const { session } = await deviceSession(opts);
    const store = openSqliteStore(g.db);
    // Custom scenarios of the lab (robustness set) can be played too.
    const domain = labDomain(store.db);
    const play = createPlayService({
      store,
      domain: () => domain,
      release: disposeModel,
      resolve: (role, spec, calls) => (role === 'DA' ? resolveDa : resolveCa)(spec, domain, g, { session, ledger: calls }),
      ledger: () => playLedger(g.db),
    });
    const say = (s: string) => {
      if (!g.json) process.stdout.write(`${s}\n`);
    };
    try {
      const seat = opts.seat as PlaySeat | undefined;
      if (!opts.resume && seat !== 'customer' && seat !== 'agent') throw new UsageError(`--seat must be customer or agent, got ${JSON.stringify(seat ?? '')}`);
      const opponent = seat === 'customer' ? opts.da! : opts.ca!;
      let v: PlayView;
      if (opts.resume) v = await play.handlers['play/resume']({ sessionId: opts.resume });
      else if (opts.fork) {
        const turn = Number(opts.turn);
        if (!Number.isInteger(turn) || turn < 0)
          throw new UsageError(`--turn must be a turn number (0, 1, …) with --fork, got ${JSON.stringify(opts.turn ?? '')}`);
        v = await play.handlers['play/fork']({ episodeId: opts.fork, turn, seat: seat!, player: opts.player, opponent });
      } else {
        v = await play.handlers['play/start']({
          seat: seat!,
          player: opts.player,
          opponent,
          ...(opts.scenario ? { scenarioId: opts.scenario } : {}),
          seed: g.seed,
        });
      }
      say(`session ${v.sessionId}: ${v.player} as the ${v.seat} against ${policyLabel(v.opponent, v.opponentCheckpoint)}`);
      say(
        v.customer
          ? `your hidden intent: ${v.customer.intent} (${v.customer.scenarioTitle}); facts: ${JSON.stringify(v.customer.facts)}`
          : `caller ID ${v.callerPhone}`,
      );
      let shown = 0;
      const show = () => v.turns.slice(shown).forEach((t) => say(turnLine(t)));
      show();
      shown = v.turns.length;
      const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
      for await (const raw of lines) {
        if (v.status === 'finished') break;
        const line = raw.trim();
        if (line === '') continue;
        try {
          const action: HumanAction = v.seat === 'customer' ? { kind: 'say', text: line } : agentLine(line);
          v = await play.handlers['play/act']({ sessionId: v.sessionId, action });
        } catch (e) {
          if (!(e instanceof PlayError)) throw e;
          process.stderr.write(`refused: ${e.message}\n`);
          continue;
        }
        show();
        shown = v.turns.length;
      }
      if (v.status === 'finished' && v.episode) {
        const e = v.episode;
        say(
          `stored as ${e.id}: ${e.winner} won; judge J ${e.judge.score.toFixed(2)} (tier ${e.judge.tier}, ${e.judge.resolved ? 'resolved' : 'not resolved'}); r_DA ${e.rDa.toFixed(2)}, r_CA ${e.rCa.toFixed(2)}; intent ${e.intent}`,
        );
        say(`DA terms ${JSON.stringify(e.daTerms)}\nCA terms ${JSON.stringify(e.caTerms)}`);
      } else {
        process.stderr.write(`the episode is unfinished; it is kept in ${store.path}: continue with --resume ${v.sessionId}\n`);
      }
      if (g.json) process.stdout.write(`${JSON.stringify(v)}\n`);
    } finally {
      await play.close();
      store.close();
    }
  });
}
