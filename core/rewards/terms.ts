/**
 * Names of the stored reward terms. Each is kept separately per turn and per episode so that an
 * analyst can see which part of Table 2 drove a reward.
 */

/** DA reward terms (RL-ADA Table 2); r_DA is their sum. */
export const DA_TERMS = [
  'format',
  'tool',
  'env_lookup_first',
  'env_correct_tool',
  'env_speak',
  'env_milestone',
  'env_late',
  'env_judge',
  'env_missed_verification',
  'env_missing_tool',
  'end',
  /** Impossible scenarios: fallback credit or claimed-success penalty (MADS). */
  'env_fallback',
] as const;
export type DaTerm = (typeof DA_TERMS)[number];
export type DaTerms = Record<DaTerm, number>;

/** CA reward terms (RL-ADA eq. 2); r_CA is their sum. */
export const CA_TERMS = ['format', 'realism', 'conceal', 'inv_da'] as const;
export type CaTerm = (typeof CA_TERMS)[number];
export type CaTerms = Record<CaTerm, number>;

export function zeroDaTerms(): DaTerms {
  return Object.fromEntries(DA_TERMS.map((t) => [t, 0])) as DaTerms;
}
export function zeroCaTerms(): CaTerms {
  return Object.fromEntries(CA_TERMS.map((t) => [t, 0])) as CaTerms;
}
export function sumTerms(terms: Record<string, number>): number {
  let s = 0;
  for (const v of Object.values(terms)) s += v;
  return s;
}
