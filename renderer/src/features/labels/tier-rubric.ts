/**
 * The written tier rubric: what a person grading an episode's quality tier (the judge audit, a
 * labelled set) and the rule judge (core/judge/judge.ts) both mean by tiers 1–4, so that people
 * and the judge grade the same thing. The Judge audit screen shows it beside the tier choice;
 * docs/people.md carries the same words (test/docs-links.test.ts keeps them equal).
 */
export interface TierRubricRow {
  tier: 1 | 2 | 3 | 4;
  /** The tier in a few words (the choice's label). */
  words: string;
  /** When to give it. */
  when: string;
}

export const TIER_RUBRIC: readonly TierRubricRow[] = [
  {
    tier: 4,
    words: 'exemplary',
    when: 'Resolved (or an impossible request refused with its fallback): identity verified first, the right tool used once, the outcome explained truly and clearly, the call ended cleanly; one sensible clarifying question is fine.',
  },
  {
    tier: 3,
    words: 'resolved with lapses',
    when: 'Resolved, but with lapses: no verification first, extra turns or tool calls, an unparseable output recovered from, a weak or jargon explanation, or no end_call (the turn limit after the outcome was told).',
  },
  {
    tier: 2,
    words: 'unresolved but handled',
    when: 'Not resolved, handled honestly: the right tool failed and the agent said so (perhaps offering an alternative or a hand-off), identity could not be verified and it escalated, or the right tool succeeded but the outcome was never told.',
  },
  {
    tier: 1,
    words: 'failed',
    when: 'The wrong tool or no tool where one was needed, garbled output, a clarification loop to the turn limit, or any hallucination (a claim no tool result or customer words support), resolved or not.',
  },
];
