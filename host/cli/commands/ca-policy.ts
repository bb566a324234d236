/** `sparring ca-policy`: a run's CA over its matches, head by head (host/engine/ca-policy.ts). */
import type { Command } from 'commander';
import { caPolicy, studyCaPolicy } from '../../engine/ca-policy';
import type { StudyCaPolicyArm } from '../../../core/contract/contract';
import type { CaPolicyMatch } from '../../../core/arena/ca-policy';
import { labDomainAt } from '../lab-domain';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { pct, table } from '../../format/table';
import { caPolicyShiftView } from '../../report/study-report';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

interface CaPolicyOptions extends DeviceOptions {
  run?: string;
  match?: string[];
}

export function registerCaPolicy(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('ca-policy')
      .description(
        "a builtin CA's opening policy over each match of a run (or the matches named): per head of its choice and value, the mean probability over the match's openings (what the arena samples from) and the share of openings whose greedy choice has it (what its gym plays)",
      )
      .option('--run <id>', 'every match of this run, in order')
      .option('--match <id...>', 'these matches instead, e.g. R1-M1 R1-M5'),
  ).action(async (opts: CaPolicyOptions) => {
    const g = globals();
    if ((opts.run === undefined) === (opts.match === undefined)) throw new UsageError('ca-policy: give --run R or --match ID…, not both');
    const r = await caPolicy({
      db: g.db,
      domain: labDomainAt(g.db),
      ...(opts.run !== undefined ? { runId: opts.run } : { matchIds: opts.match! }),
      session: (await deviceSession(opts)).session,
    });
    process.stdout.write(g.json ? `${JSON.stringify(r, null, 2)}\n` : formatCaPolicy(r.matches));
  });
}

/** One row per head and value, one column per match: mean probability, greedy share in brackets. */
export function formatCaPolicy(matches: readonly CaPolicyMatch[]): string {
  const first = matches[0]!;
  const rows = first.heads.flatMap((h, hi) =>
    h.values.map((v, vi) => [
      vi === 0 ? h.head : '',
      v.value,
      ...matches.map((m) => {
        const x = m.heads[hi]!.values[vi]!;
        return `${pct(x.meanP)} (${pct(x.greedyShare)})`;
      }),
    ]),
  );
  const lines = [
    `The CA's opening policy per match: mean probability over the match's openings (share of openings whose greedy choice has the value)`,
    ...matches.map((m) => `${m.matchId}: ${m.ca} against ${m.da}, ${m.openings} openings`),
    '',
    table(['head', 'value', ...matches.map((m) => `${m.matchId} ${m.ca}`)], rows, ['l', 'l', ...matches.map(() => 'r' as const)]),
  ];
  return `${lines.join('\n')}\n`;
}

/** `sparring study ca-policy S`: how each arm's CA moved, first match → last, over the study's seeds. */
export function registerStudyCaPolicy(study: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    study
      .command('ca-policy')
      .description(
        "how each arm's CA moved over its runs: per head of its choice and value, the mean probability over the first match's openings (CA0) and the last's, mean [95% t] over seeds, the per-seed change with its interval and the seeds it rose and fell in (arena openings only; nothing held out read)",
      )
      .argument('<study>', 'the study id, e.g. S1')
      .argument('[arm]', 'this arm only (default: every arm)'),
  ).action(async (id: string, arm: string | undefined, opts: DeviceOptions) => {
    const g = globals();
    const arms = await studyCaPolicy({
      db: g.db,
      domain: labDomainAt(g.db),
      studyId: id,
      ...(arm !== undefined ? { arm } : {}),
      session: (await deviceSession(opts)).session,
    });
    process.stdout.write(g.json ? `${JSON.stringify(arms, null, 2)}\n` : formatStudyCaPolicy(id, arms));
  });
}

export function formatStudyCaPolicy(id: string, arms: readonly StudyCaPolicyArm[]): string {
  const out = [`study ${id}: the CA's opening policy, first match (CA0) → last, mean probability over a match's openings; mean [95% t] over seeds`];
  for (const a of arms) {
    out.push('', `${a.arm} (${a.seeds.length} seed${a.seeds.length === 1 ? '' : 's'} finished)`);
    if (!a.rows.length) continue;
    const v = caPolicyShiftView(a);
    out.push(table(v.header, v.rows, ['l', 'l', 'r', 'r', 'r', 'r']));
  }
  return `${out.join('\n')}\n`;
}
