/** `sparring best-response`: what the CA's action space allows against a match's DA, beside what its CA played. */
import type { Command } from 'commander';
import { bestResponse } from '../../engine/best-response';
import type { BestResponseReport } from '../../engine/best-response';
import { labDomainAt } from '../lab-domain';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import { progressBar } from '../progress';
import { pct, table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

interface BestResponseOptions extends DeviceOptions {
  match: string;
}

export function registerBestResponse(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('best-response')
      .description(
        "replay a stored match's openings with every choice of the CA's action space (8,640) against its DA: W_DA against the CA's own opening, one opening per intent (2-fold) and a per-episode oracle",
      )
      .requiredOption('--match <id>', 'a match played by two builtin checkpoints, e.g. R1-M4 (sparring report lists them)'),
  ).action(async (opts: BestResponseOptions) => {
    const g = globals();
    const bar = progressBar(`best response ${opts.match}`);
    const r = await bestResponse({
      db: g.db,
      domain: labDomainAt(g.db),
      matchId: opts.match,
      session: (await deviceSession(opts)).session,
      onProgress: (d, t) => bar.update(d, t),
    });
    bar.stop();
    process.stdout.write(g.json ? `${JSON.stringify(r, null, 2)}\n` : formatBestResponse(r));
  });
}

const reward = (v: number) => (Number.isNaN(v) ? 'n/a' : v.toFixed(3));

export function formatBestResponse(r: BestResponseReport): string {
  const lines = [
    `${r.matchId}: ${r.da} against ${r.ca}, ${r.episodes} episodes (fraud references left out), ${r.choices} openings each`,
    table(
      ['the CA opens with', 'W_DA', 'gym reward'],
      [
        ['its own greedy choice (this replay)', pct(r.wDaGreedy), reward(r.gymReward.greedy)],
        ['one choice per intent, chosen on the other half of its episodes by wins', pct(r.wDaPerIntent), reward(r.gymReward.perIntent)],
        ['one choice per intent, chosen the same way by the gym reward', pct(r.wDaPerIntentByReward), reward(r.gymReward.perIntentByReward)],
        ['the best choice of each episode (oracle)', pct(r.wDaOracle), ''],
        ['a uniformly random choice', pct(1 - r.meanWinShare), ''],
      ],
      ['l', 'r', 'r'],
    ),
    `(the match stored W_DA ${r.wDaStored === null ? 'n/a' : pct(r.wDaStored)}: the same openings in the arena's wording)`,
    '',
    table(
      ['head', 'value', 'CA wins', 'gym reward', 'greedy picks it', 'CA wins, greedy with this value'],
      r.factors.flatMap((f) =>
        f.values.map((v, i) => [i === 0 ? f.head : '', v.value, pct(v.winRate), v.meanReward.toFixed(3), pct(v.greedyShare), pct(v.deviation)]),
      ),
      ['l', 'l', 'r', 'r', 'r', 'r'],
    ),
  ];
  return `${lines.join('\n')}\n`;
}
