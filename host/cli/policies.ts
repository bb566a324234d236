/** Turns a policy SPEC from the command line into a policy (DESIGN.md §7). */
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import type { Domain } from '../../core/domain/types';
import { UsageError } from './options';
import type { GlobalOptions } from './main';

function unknownSpec(role: 'DA' | 'CA', spec: string): never {
  throw new UsageError(
    `--${role.toLowerCase()} "${spec}": no such policy. Available now: "scripted". ` +
      `Trained checkpoints ("latest", "${role}0", …) become available once this lab holds ${role} checkpoints.`,
  );
}

export async function resolveDa(spec: string, _domain: Domain, _g: GlobalOptions): Promise<DaPolicy> {
  if (spec === 'scripted') return new ScriptedDa();
  return unknownSpec('DA', spec);
}

export async function resolveCa(spec: string, domain: Domain, _g: GlobalOptions): Promise<CaPolicy> {
  if (spec === 'scripted') return new ScriptedCa(domain);
  return unknownSpec('CA', spec);
}
