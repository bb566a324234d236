/**
 * How long a preset takes, said on its card before a run starts: measured in this lab (the median
 * of its finished runs that kept it as it is, PresetInfo.measured) or, where it never ran here,
 * its budget. And which preset the screen starts on: the quickest, not the first listed (paper,
 * the slowest, used to be preselected with no word of its time).
 */
import type { PresetInfo } from '../../../../core/contract/contract';
import { formatDuration } from '../../components/ProgressBar';

/** "about 41 s here (median of 3 runs)", or "not run in this lab yet · at most 3 matches of 3 episodes per scenario". */
export function presetTimeText(p: Pick<PresetInfo, 'measured' | 'budget'>): string {
  if (p.measured)
    return `about ${formatDuration(p.measured.seconds)} here (${p.measured.runs === 1 ? 'one run' : `median of ${p.measured.runs} runs`} in this lab)`;
  return ['time not measured in this lab yet', p.budget].filter(Boolean).join(' · ');
}

/**
 * The preset a new run starts from: `quick` (the README's first command, the smallest run that
 * shows co-evolution), else the one measured quickest here, else the first. Not simply the
 * quickest: `smoke` is quicker but shows no co-evolution.
 */
export function defaultPreset(presets: readonly PresetInfo[]): PresetInfo | null {
  const measured = presets.filter((p) => p.measured).sort((a, b) => a.measured!.seconds - b.measured!.seconds);
  return presets.find((p) => p.name === 'quick') ?? measured[0] ?? presets[0] ?? null;
}
