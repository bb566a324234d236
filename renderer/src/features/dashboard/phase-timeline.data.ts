/** The run's phases in order — bootstrap, match, gym, match, …, evaluation — with where it is now. */
import type { RunDetail } from '../../../../core/contract/contract';

export type SegmentKind = 'bootstrap' | 'match' | 'gym' | 'evaluate' | 'paused' | 'done' | 'stopped' | 'failed';

export interface PhaseSegment {
  key: string;
  kind: SegmentKind;
  label: string;
  /** A shorter label for a narrow box (the full one stays in the tooltip). */
  short: string;
  /** The agent a gym trains. */
  role: 'DA' | 'CA' | null;
  state: 'done' | 'active' | 'ended';
}

export function phaseSegments(d: Pick<RunDetail, 'phase' | 'status' | 'matchSummaries' | 'gyms'>): PhaseSegment[] {
  const out: PhaseSegment[] = [];
  const matches = [...d.matchSummaries].sort((a, b) => a.index - b.index);
  const active = d.status === 'running' || d.status === 'created';
  out.push({
    key: 'bootstrap',
    kind: 'bootstrap',
    label: 'Bootstrap',
    short: 'Boot',
    role: null,
    state: d.phase === 'bootstrap' && matches.length === 0 ? (active ? 'active' : 'ended') : 'done',
  });
  for (const m of matches) {
    out.push({ key: `match-${m.index}`, kind: 'match', label: `Match ${m.index}`, short: `M${m.index}`, role: null, state: 'done' });
    const gym = d.gyms.find((g) => g.afterMatch === m.index);
    // Gyms numbered in the order they ran, both agents counted (as the gym curves label them).
    if (gym)
      out.push({
        key: `gym-${m.index}`,
        kind: 'gym',
        label: `${gym.role} gym ${d.gyms.indexOf(gym) + 1}`,
        short: `${gym.role} ${d.gyms.indexOf(gym) + 1}`,
        role: gym.role,
        state: 'done',
      });
  }
  const last = matches.at(-1);
  switch (d.phase) {
    case 'match':
      out.push({
        key: `match-${(last?.index ?? 0) + 1}`,
        kind: 'match',
        label: `Match ${(last?.index ?? 0) + 1}`,
        short: `M${(last?.index ?? 0) + 1}`,
        role: null,
        state: active ? 'active' : 'ended',
      });
      break;
    case 'gym':
    case 'waiting-for-trainer': {
      // The gym planned now (a schedule's queue; RL-ADA's weaker agent for runs stored before schedules).
      const role = last?.gyms?.[d.gyms.filter((g) => g.afterMatch === last.index).length] ?? last?.next?.role;
      if (last && role && !d.gyms.some((g) => g.afterMatch === last.index && g.role === role)) {
        const external = d.phase === 'waiting-for-trainer' ? ' (external trainer)' : '';
        out.push({
          key: `gym-${last.index}`,
          kind: 'gym',
          label: `${role} gym ${d.gyms.length + 1}${external}`,
          short: `${role} ${d.gyms.length + 1}`,
          role,
          state: active ? 'active' : 'ended',
        });
      }
      break;
    }
    case 'evaluate':
      out.push({ key: 'evaluate', kind: 'evaluate', label: 'Held-out evaluation', short: 'Evaluation', role: null, state: active ? 'active' : 'ended' });
      break;
    case 'done':
      out.push({ key: 'evaluate', kind: 'evaluate', label: 'Held-out evaluation', short: 'Evaluation', role: null, state: 'done' });
      out.push({ key: 'done', kind: 'done', label: 'Done', short: 'Done', role: null, state: 'done' });
      break;
    case 'paused':
      out.push({ key: 'paused', kind: 'paused', label: 'Paused', short: 'Paused', role: null, state: 'active' });
      break;
    case 'stopped':
      out.push({ key: 'stopped', kind: 'stopped', label: 'Stopped', short: 'Stop', role: null, state: 'ended' });
      break;
    case 'failed':
      out.push({ key: 'failed', kind: 'failed', label: 'Failed', short: 'Failed', role: null, state: 'ended' });
      break;
    default:
      break;
  }
  return out;
}
