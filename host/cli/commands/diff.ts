/** `sparring diff`: two checkpoints of one role replay a scenario and seed; where they first differ. */
import type { Command } from 'commander';
import { Option } from 'commander';
import type { EpisodeDiff, TurnRecord } from '../../../core/contract/contract';
import { bankingDomain } from '../../domain-files';
import { replayPair } from '../../engine/replay';
import type { GlobalOptions } from '../global-options';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { UsageError } from '../options';

interface DiffOptions extends DeviceOptions {
  a: string;
  b: string;
  role: 'DA' | 'CA';
  opponent: string;
  scenario: string;
}

export function registerDiff(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('diff')
      .description('replay one scenario and seed with two policies of a role against the same opponent; show the first divergence')
      .requiredOption('--a <spec>', 'first policy: scripted | latest | a checkpoint name (e.g. DA0)')
      .requiredOption('--b <spec>', 'second policy (e.g. DA2)')
      .requiredOption('--scenario <id>', 'scenario id (see assets/domains/banking/scenarios)')
      .addOption(new Option('--role <role>', 'which role --a and --b play').choices(['DA', 'CA']).default('DA'))
      .option('--opponent <spec>', 'the other role, the same for both replays', 'scripted'),
  ).action(async (opts: DiffOptions) => {
    const g = globals();
    const domain = bankingDomain();
    if (!domain.scenarios.some((s) => s.id === opts.scenario)) {
      throw new UsageError(`--scenario "${opts.scenario}": no such scenario; known: ${domain.scenarios.map((s) => s.id).join(', ')}`);
    }
    const d = await replayPair(
      { role: opts.role, a: opts.a, b: opts.b, opponent: opts.opponent, scenarioId: opts.scenario, seed: g.seed },
      { db: g.db, domain, session: (await deviceSession(opts)).session },
    );
    process.stdout.write(g.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiff(d));
  });
}

/** Both transcripts turn by turn, the first divergent turn marked `>>` with what differs. */
export function formatDiff(d: EpisodeDiff): string {
  const { a, b, divergence: div } = d;
  const lines = [`${d.role} ${a.spec} vs ${b.spec} on ${d.scenarioId}, seed ${d.seed}, against ${d.opponent}`];
  const n = Math.max(a.episode.turns.length, b.episode.turns.length);
  for (let i = 0; i < n; i++) {
    const mark = div?.turn === i ? '>>' : '  ';
    lines.push(`${mark} #${i} A ${turnLine(a.episode.turns[i])}`);
    lines.push(`${mark}    B ${turnLine(b.episode.turns[i])}`);
  }
  const ep = (e: EpisodeDiff['a']['episode']) =>
    `${e.winner} won, routed ${e.routedTool ?? 'nothing'}, r_DA ${e.rDa.toFixed(2)}, J ${e.judge.score.toFixed(2)}${e.judge.resolved ? ' resolved' : ''}${e.judge.hallucination ? ' hallucination' : ''}`;
  lines.push(`A: ${ep(a.episode)}`, `B: ${ep(b.episode)}`);
  lines.push(
    div === null
      ? 'no divergence: the two replays are the same episode'
      : `first divergence: ${div.turn === null ? 'no turn' : `turn ${div.turn} (${div.fields.join(', ')})`}; reward credit differs at turns ${div.rewardTurns.join(', ') || 'none'}; episode differs in: ${div.episode.join(', ') || 'nothing'}`,
  );
  return `${lines.join('\n')}\n`;
}

function turnLine(t: TurnRecord | undefined): string {
  if (!t) return '(no turn)';
  if (t.role === 'customer') return `customer: ${t.text}`;
  const what =
    t.actionType === 'tool_call'
      ? `${t.tool} ${JSON.stringify(t.toolArgs ?? {})} → ${t.toolResult ? (t.toolResult.ok ? 'ok' : t.toolResult.error.code) : '?'}`
      : (t.actionType ?? `unparseable: ${t.parseError}`);
  return `agent ${what}`;
}
