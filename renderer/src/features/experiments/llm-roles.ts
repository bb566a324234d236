/**
 * The Experiments screen's role pickers: a model saved in the lab (Models screen) may play the DA
 * or the CA of a run. They read and write the config's `schedule.llm` (core/coevolution/run-config.ts),
 * so the JSON editor and the pickers never disagree; '' is the builtin policy (bootstrapped, trained).
 */

export type LlmRole = 'da' | 'ca';

/** The model a config text gives a role; '' when none (the builtin policy) or not JSON. */
export function llmRoleOf(text: string, role: LlmRole): string {
  try {
    const name = (JSON.parse(text) as { schedule?: { llm?: Record<string, unknown> } }).schedule?.llm?.[role];
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

/** The config text with `schedule.llm[role]` set ('' removes it, and an emptied block); unchanged when not JSON. */
export function withLlmRole(text: string, role: LlmRole, name: string): string {
  let cfg: Record<string, unknown>;
  try {
    cfg = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return text;
  }
  if (typeof cfg !== 'object' || cfg === null || Array.isArray(cfg)) return text;
  const schedule = { ...((cfg.schedule ?? {}) as Record<string, unknown>) };
  const { [role]: _old, ...llm } = (schedule.llm ?? {}) as Record<string, unknown>;
  if (name !== '') llm[role] = name;
  if (Object.keys(llm).length) schedule.llm = llm;
  else delete schedule.llm;
  if (Object.keys(schedule).length) cfg.schedule = schedule;
  else delete cfg.schedule;
  return JSON.stringify(cfg, null, 2);
}

/** The judge a config text names (`judge`: an LLM endpoint saved in the lab); '' for the rule judge (absent or `rule`) or not JSON. */
export function llmJudgeOf(text: string): string {
  try {
    const name = (JSON.parse(text) as { judge?: unknown }).judge;
    return typeof name === 'string' && name !== 'rule' ? name : '';
  } catch {
    return '';
  }
}

/**
 * The managed trainer a config text gives a role's gyms (`gym.da.trainer` / `gym.ca.trainer`
 * `{"kind": "trl", …}`: the run trains the gym itself, core/coevolution/run-config.ts), as its
 * kind in capitals ('TRL'); '' for the builtin gym, an external trainer, or text that is not JSON.
 */
export function managedTrainerOf(text: string, role: LlmRole): string {
  try {
    const t = (JSON.parse(text) as { gym?: Record<string, { trainer?: unknown } | undefined> }).gym?.[role]?.trainer;
    const kind = typeof t === 'object' && t !== null ? (t as { kind?: unknown }).kind : undefined;
    return typeof kind === 'string' && kind !== 'external' && kind !== 'builtin' ? kind.toUpperCase() : '';
  } catch {
    return '';
  }
}
