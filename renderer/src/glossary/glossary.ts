/**
 * The terms a person meets on screen, each with one definition (the paper's where it has one:
 * RL-ADA = seed 000, MADS = seed 001). Shown by the Term component as a tooltip, so a label stays
 * short and its meaning is one hover away. One place, so every screen says the same thing.
 */
export const GLOSSARY = {
  DA: 'Defender agent: the support agent being trained (RL-ADA). DA0 is its bootstrap checkpoint; DA1, DA2, … come from DA gyms.',
  CA: 'Customer agent: the adversarial customer trained to make the DA fail (RL-ADA). CA0 is its bootstrap checkpoint.',
  scripted: 'The scripted customer: a fixed, hand-written opponent, so DA checkpoints of different runs can be compared.',
  routing: 'Tool-routing accuracy: the share of held-out episodes whose first domain tool is the one the customer’s intent needs (RL-ADA §5.2).',
  strictPass:
    'Strict PASS: the right tool, lookup_account first, episode reward r_DA ≥ 2.0, a clean end_call with no unparseable output, and the judge found the problem resolved (RL-ADA Table 4).',
  fail: 'FAIL: the judge found the customer’s problem unresolved. Episodes neither PASS nor FAIL were resolved with lapses (e.g. r_DA < 2).',
  meanReward: 'Mean episode reward r_DA of the DA over the held-out episodes (RL-ADA §4).',
  lookupFirst: 'Lookup first: the share of episodes where the DA called lookup_account before any other tool.',
  gate: 'Deployment gate: the DA’s win rate on the non-negotiable scenarios (fraud, account compromise, identity verification) must reach the threshold, whatever the stopping rule says (RL-ADA §7).',
  wilson:
    '95% Wilson interval: where the true rate lies with 95% confidence, given how few episodes measured it (one of the paper preset’s 192 held-out episodes moves a rate by half a point, one of 24 by 4).',
  delta: 'Δ from DA0: this checkpoint’s value minus the bootstrap checkpoint DA0’s; for rates in percentage points (pts).',
  wDa: 'W_DA: the DA’s win rate over a match’s episodes (RL-ADA §5.1). The run stops when W_DA stays within τ_DA for the set number of consecutive matches.',
  tauDa: 'τ_DA: the target win rate of the stopping rule; a match with W_DA near τ_DA means the two agents are balanced.',
  gym: 'Gym: a stretch of GRPO training of one agent against the other, frozen (RL-ADA §4.3). Each gym starts from the latest checkpoint and saves the next.',
  warmup: 'Warm-up: DA0’s GRPO training against the scripted customer during bootstrap, after its supervised fine-tuning.',
  pressure: 'Reward pressure: CA0’s GRPO training against the frozen DA0 during bootstrap (r_CA, whose core is the inverse of the DA’s win).',
  kl: 'KL to reference: the mean k3 estimate of KL(π‖π_ref) per token between the policy being trained and the checkpoint it started from, in nats.',
  loss: 'GRPO loss: the clipped policy-gradient objective plus β·KL, averaged over the batch (lower is not always better).',
  fraudRate: 'Fraud-reference DA win rate: how often the DA handled the non-negotiable scenarios (fraud, account compromise) correctly in this match.',
  L1: 'MADS L-1: the share of episodes where every validator passed (MADS §4).',
  L2: 'MADS L-2: the share of the task’s reference actions the DA completed, averaged over episodes (MADS §4).',
  L2complete: 'L-2 complete: the share of episodes in which the DA completed every reference action (MADS §4).',
  actionRecall: 'Action recall: the share of the reference action types the DA performed (MADS L-1).',
  toolF1: 'Tool F1: overlap between the tools the DA called and the reference tools (MADS L-1).',
  paramEM: 'Parameter exact match: the share of tool calls whose arguments equal the reference’s (MADS L-1).',
  responseSim: 'Response similarity: how close the DA’s messages are to the reference responses (MADS L-1).',
  episodes: 'Episodes: how many conversations the numbers are measured on.',
  bestResponse:
    'Best response: each episode of a match replayed with every opening the CA’s action space allows (8,640) against the match’s frozen DA. It bounds what a CA gym could find: far below the CA’s own W_DA, the gym has not found it; near it, the action space has nothing left.',
  caPolicy:
    'CA policy: the probability the CA’s policy gives each value of each head of its choice, averaged over a match’s openings (what the arena samples from), and the share of openings whose most probable choice has it (what its gym rollouts play). Read across matches, it shows which factors the CA’s gyms moved.',
  gymReward:
    'Gym reward: what the CA’s gym optimises for an opening, r_CA’s terms of the opening (format, realism, conceal) plus the episode’s inverse-DA term.',
  consecutive: 'Stopping rule: the run stops when W_DA has stayed within the tolerance of τ_DA for this many matches in a row.',
} as const;

export type GlossaryTerm = keyof typeof GLOSSARY;

/** Reward terms (RL-ADA Table 2 for r_DA, eq. 2 for r_CA) in words, for the transcript's reward chips. */
export const REWARD_TERMS: Record<string, { label: string; definition: string }> = {
  format: { label: 'format', definition: 'Format: the turn parsed as a well-formed action (speech, tool call or end of call).' },
  tool: { label: 'tool call', definition: 'Tool: a valid call of a known tool with well-formed arguments.' },
  env_lookup_first: { label: 'lookup first', definition: 'The DA called lookup_account before any other tool.' },
  env_correct_tool: { label: 'right tool', definition: 'The DA called the tool the customer’s intent needs (correct routing).' },
  env_speak: { label: 'spoke', definition: 'The DA explained the result to the customer.' },
  env_milestone: { label: 'milestone', definition: 'A step of the task was completed (e.g. the dispute filed).' },
  env_late: { label: 'late', definition: 'Penalty for turns beyond the expected length of the call.' },
  env_judge: { label: 'judge', definition: 'The judge’s verdict on whether the customer’s problem was resolved.' },
  env_missed_verification: { label: 'skipped verification', definition: 'Penalty: the DA acted on the account without verifying the caller.' },
  env_missing_tool: { label: 'tool never called', definition: 'Penalty: the call ended without the tool the intent needs.' },
  end: { label: 'ending', definition: 'How the call ended: a clean end_call, or cut off at the turn limit.' },
  env_fallback: { label: 'fallback', definition: 'Impossible scenarios: credit for the right fallback, penalty for claiming success (MADS).' },
  realism: { label: 'realism', definition: 'The CA sounded like a real customer (RL-ADA eq. 2).' },
  conceal: { label: 'concealment', definition: 'The CA did not state its intent outright (RL-ADA eq. 2).' },
  inv_da: { label: 'DA misrouted', definition: 'Inverse of the DA’s win: the CA’s reward when the DA routes the call wrongly (RL-ADA eq. 2).' },
};

/** The customer's private facts (Play brief) in words. */
export const FACT_LABELS: Record<string, string> = {
  merchant: 'Merchant',
  amount: 'Amount',
  datePhrase: 'When',
  channel: 'How it was paid',
  place: 'Where',
  account: 'Other account',
  cardLast4: 'Card ending in',
};
