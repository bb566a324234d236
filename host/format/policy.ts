/** How a policy SPEC and the checkpoint it resolved to read in tables and reports. */
import type { CheckpointRef } from '../../core/agents/policy';

/**
 * `latest → DA3` when the SPEC named another checkpoint than itself, the SPEC alone when it is
 * the checkpoint's own name (`DA3`) or no checkpoint (`scripted`, `human:ana`).
 */
export function policyLabel(spec: string, checkpoint: CheckpointRef | null | undefined): string {
  return checkpoint && checkpoint.name !== spec ? `${spec} → ${checkpoint.name}` : spec;
}
