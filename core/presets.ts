/**
 * The one table of Sparring's defaults for runs: the gym budgets (GRPO per role), the run presets
 * (`paper`, `robust`, `quick`), and, through DEFAULT_CONFIG, the method's constants (stopping,
 * rewards, arena). The CLI, the app (through the contract), studies and the GRPO defaults of
 * core/rl/grpo.ts all read them from here.
 */
import { DEFAULT_CONFIG } from './config';
import type { GrpoBudget, RunConfig } from './coevolution/run-config';

/**
 * The DA's GRPO after SFT: a small learning rate, a trust region and a cap on passes. At lr 1e-3
 * (the SFT scale) a DA gym on a strong DA's few failures (6–12 episodes of 180) took the KL to its
 * start to 5–9 nats, W_DA from 97.9% to 61.1% and held-out routing from 95.8% to 50% (paper with
 * τ_DA 0.97, seed 1); at 1e-4 with maxKl 1 and 8 passes the same forced gyms raised W_DA
 * (94.4 → 98.6%, 94.4 → 96.5%) or held it (97.9%) on seeds 1–3.
 */
export const PAPER_GYM_DA: GrpoBudget = {
  steps: 60,
  promptsPerStep: 16,
  K: 16,
  lr: 1e-4,
  klBeta: 0.04,
  clipEps: 0.2,
  lrSchedule: 'constant',
  maxKl: 1,
  maxPasses: 8,
};
export const PAPER_GYM_CA: GrpoBudget = { steps: 60, promptsPerStep: 16, K: 8, lr: 2e-3, klBeta: 0.05, clipEps: 0.2, lrSchedule: 'cosine' };

/**
 * DA0's SFT in the `robust` preset (an SFT recipe, not the method's result): 16 expert episodes
 * per intent against each customer (plain and camouflaged) and 8 camouflaged variants per train
 * sentence. Against the same opponents (the final CAs of seeds 1–3 of runs with the earlier 2 and
 * 3), the DA0s of seeds 1–3 routed 92.6% of 960 arena episodes (whole bank) with 2 and 3, 94.8%
 * with 8 and 6, 94.7% with 16 and 8; and 92.6 / 94.3 / 95.7% of 1,152 held-out episodes. A DA0
 * this strong wins 98.6–100% of arena episodes, so the stopping rule never trains the DA.
 */
const robustSft = { epochs: 6, batchSize: 64, lr: 3e-3, expertEpisodesPerIntent: 16, camouflaged: 8 };

/**
 * DA0's SFT as RL-ADA bootstraps it (§3.3): routing demonstrations of the bank's train sentences
 * as customers say them, expert episodes against a plain-spoken customer, and 8 hasty-expert
 * recovery episodes per dispute intent against that same plain-spoken customer (the protocol's
 * retry: a dispute call that named no charge, the explanation asks which, the call again); no
 * camouflaged variants, no episodes against a camouflaged customer. What DA0 lacks against a
 * customer who hedges, decoys and buries the need is what co-evolution has to teach it.
 *
 * The recovery episodes since issue 13's thirtieth session, chosen on the arena alone with the
 * arena-only estimate (`sparring study estimate`: DA0 and the final DA against the run's final CA
 * on the arena scenarios, the CA speaking the run's train slice; nothing held out read), `full`,
 * seeds 1–20 in two studies of 10 (gain routing / strict PASS [95% t]; DA0 → final strict PASS):
 *   none (before)                      +19.9 [15.9, 24.0] / +13.6 [10.4, 16.8]   48.8 → 62.4
 *   8 per dispute intent, plain        +17.9 [14.1, 21.8] / +16.8 [13.0, 20.6]   67.7 → 84.6
 *   paired, 8 − none                   −2.0 [−6.4, +2.4] / +3.2 [−0.2, +6.6]
 * (seeds 1–10 alone: +22.7 / +16.2 against +20.0 / +19.3; 4 per intent there +14.6 / +13.8, paired
 * −8.1 [−18.8, 2.6] / −2.4.) Kept: the smaller of the two gains the issue asks for rises from 13.6 to
 * 16.8 points, and the final DA resolves nearly all it routes (routing 85.9%, strict PASS 84.6%,
 * against 82.4 and 62.4%: the routed-but-unresolved disputes held strict PASS down), while DA0
 * routes 67.9% against 62.5% and the DA still trains in 20 of 20 seeds (W_DA non-monotonic in 18
 * of 20, against 20).
 * This reverses the entry below, which measured the recovery episodes first match → last, a
 * measure that marks a stronger final CA down. Every table below (and PAPER_FAITHFUL_GYMS's) was
 * measured before, on the preset without them. Held-out, read once after the choice (seeds 1–10,
 * `full`, final − DA0 against the run's own final CA): routing +12.4 [6.6, 18.2] and strict PASS
 * +11.4 [5.6, 17.2] (final DA 70.3 / 68.9%), against +16.8 / +11.2 (72.2 / 57.7%) before.
 *
 * Tried on the arena and not kept (seeds 1–10, `full`, the 240-step CA0 below): label smoothing
 * 0.1 on DA0's action cross-entropy, so that a DA gym could sample the retry of a dispute after
 * INVALID_ARGUMENTS (the arena's routed-but-unresolved episodes end with end_call at p ≥ 0.97
 * once the customer names the charge). DA0 came out weaker (arena W_DA at match 1 34–56%, against
 * 42–73%), the DA trained first on every seed, W_DA was non-monotonic in 3 of 10 (9 without), and
 * the final DAs still did not retry (routed-but-unresolved episodes of the last match 26 per seed
 * on average, against 31).
 *
 * Also tried on the arena and not kept (the same seeds and arm): 8 hasty-expert recovery episodes
 * per dispute intent against the plain-spoken customer (`recoveryEpisodesPerIntent` 8,
 * `recoveryCustomer` 'plain'), which teach the retry without a camouflaged customer. The retry was
 * learnt (routed-but-unresolved episodes of the last match 1.0 per seed against 30.8; arena strict
 * PASS of the last match 77.7% against 63.1%), but DA0 came out stronger (W_DA at match 1 52–84%
 * against 42–73%), the DA trained in 9 of 10 seeds (10), W_DA was non-monotonic in 8 (9), and the
 * arena routing gain from the first match to the last halved: +4.2 [−5.9, 14.2] points against
 * +9.5 [1.5, 17.5]. The method's own gain is what this preset is for.
 *
 * A release later, the DA gym given the chance to find the retry by sampling (GRPO's
 * `temperature`, core/rl/grpo.ts), arena, seeds 1–10, `full`, each against the preset as is
 * (routing and strict PASS of a match's 180 episodes, first match → last, per-seed difference;
 * routed-but-unresolved dispute episodes of the last match per seed):
 *   as is                                 routing +7.0 [−1.6, 15.6]  strict +4.2 [−2.3, 10.6]  unresolved 28.8  (DA trained 10, non-monotonic 9)
 *   gym.da.temperature 2                  +6.9 [−3.0, 16.8]          +4.9 [−1.5, 11.3]         27.3  (10, 9)
 *   + 2 plain recoveries per intent       +7.7 [−1.4, 16.8]          +2.7 [−7.2, 12.6]          9.5  (9, 6; 0.5 in match 1)
 *   + 1 plain recovery per intent         +4.1 [−3.7, 12.0]          −4.3 [−11.1, 2.5]         16.5  (9, 8; 1.7 in match 1)
 * At T = 2 the final DAs still hold the retry 8.6–19.1 nats below ending the call (per-seed means
 * at those states) and it is not drawn. With one or two recoveries DA0 already retries, and the
 * DA gyms unlearn it. The reward is not what is missing: forced at 12 of the 44 such states of seed
 * 8's last match (T = 2), the retry earned a decision reward of 5.95 (resolved) and ending the call 1.00,
 * every time. None kept. Later, gym.da.temperature 4 (the retry 2–5 nats down at those states in
 * π_T): routing +7.4 [−3.4, 18.3], strict +5.1 [−1.6, 11.7], unresolved 28.0 (10, 9 by W_DA), and
 * not one retry of a failed dispute call in any match of the 10 seeds. The states are rare in a DA
 * gym: a routed-but-unresolved dispute is a DA win, so it enters a DA gym only through the gym's
 * 30% share of successes, one such decision point per episode.
 *
 * A release later, fewer expert episodes, so that DA0 would come out of SFT with less of the
 * protocol and the method would have more of it to teach (RL-ADA's DA0 looked up first in 58% of
 * held-out episodes; this DA0 in all). Measured on the arena alone (`sparring study estimate`:
 * DA0 and the final DA against the run's final CA, CA speaking the train slice), seeds 1–10,
 * `full` (DA0 → final routing; gain routing / strict PASS [95% t]; the gain paired against these):
 *   4 per intent (these)   63.3 → 86.0   +22.7 [16.2, 29.1] / +16.2 [11.6, 20.8]
 *   2 per intent           52.3 → 73.4   +21.2 [12.8, 29.5] / +14.6 [8.6, 20.5]    −1.5 [−10.4, 7.4] / −1.6 [−9.1, 5.9]
 *   1 per intent           51.6 → 75.6   +24.1 [15.9, 32.2] / +17.9 [12.1, 23.7]   +1.4 [−9.3, 12.1] / +1.7 [−6.7, 10.1]
 * One expert episode per intent still teaches lookup_account first; DA0 routes about 11 points
 * worse and the final DA as much, so the gain does not move. Not kept. (`study show` printed the
 * 1-per-intent study's held-out tables beside these; they were not used to choose.)
 */
const paperSft = {
  epochs: 6,
  batchSize: 64,
  lr: 3e-3,
  expertEpisodesPerIntent: 4,
  camouflaged: 0,
  camouflagedEpisodesPerIntent: 0,
  recoveryEpisodesPerIntent: 8,
  recoveryCustomer: 'plain' as const,
};

/**
 * The held-out evaluation of the paper and robust presets: 2 runs × 8 episodes per held-out
 * scenario, 192 episodes per DA and opponent. The protocol before played one episode per scenario
 * and run, 24 in all: one episode moved a rate by 4.2 points, and a seed's final − DA0 difference
 * carried a binomial standard error of about 13 points, most of the spread between seeds in the
 * studies' intervals (sd of 10 seeds' routing gain about 16). At 192 that error is about 5 points.
 * Fixed before any figure it gives was seen; the evaluation is a small part of a run (`sparring
 * run --preset paper --seed 1`: 26.1 s with 1 episode per scenario and 26.1 s with 8). The study's
 * panel keeps one episode per scenario and run against each of its ~55 counterparts
 * (host/study/study-panel.ts).
 */
const HELDOUT_EVAL = { runs: 2, episodesPerScenario: 8, gateEpisodesPerScenario: 9 } as const;

const robustShape = (sft: RunConfig['bootstrap']['sft']): RunConfig => ({
  arena: { ...DEFAULT_CONFIG.arena },
  stopping: { ...DEFAULT_CONFIG.stopping },
  bootstrap: { sft, daWarmup: { ...PAPER_GYM_DA, steps: 30 }, caPressure: { ...PAPER_GYM_CA, steps: 40 } },
  gym: { da: PAPER_GYM_DA, ca: PAPER_GYM_CA, failureShare: 0.7 },
  eval: { ...HELDOUT_EVAL },
});

/**
 * The paper preset's gyms, chosen on the arena alone (W_DA per match and per-scenario arena routing;
 * held-out never looked at), `full` arm, seeds 1–6, at paper size.
 *
 * Before issue 20's DA (product routing, GRPO could not reach the intent head), seeds 1–4: with the
 * robust preset's gyms seed 3 converged at match 3 and the DA never trained; 80 pressure steps and
 * CA gyms at 3e-3 brought W_DA below the DA's floor, and DA gyms at 1e-3 recovered it furthest
 * (59.7 → 76.4 / 61.1 → 84.7% on seeds 3 / 4, against 68.8 / 72.9% at 1e-4).
 *
 * Issue 20's DA0 (one routing head that GRPO trains) is stronger and its gyms reach more
 * parameters, so both were chosen again. CA0 pressure: with 80 steps W_DA opened at 76–83% and the
 * CA's gyms alone brought it to 60–65%, where the stability gate fired: the DA trained in 1 of 5
 * seeds. With 240 steps it opens at 63–74% and the DA trains in 5 of 6 (320 steps: the same count,
 * longer runs). The DA gym at 240 steps, measured by W_DA from the match before a DA gym to the
 * one after it (the same CA) and by the per-scenario arena routing on the three transfer_to_human
 * scenarios, which the 70:30 mix should keep (RL-ADA §3.5):
 *   lr 1e-3, β 0.04: ΔW_DA +17.2 points (5 gyms), transfer scenarios −18.1
 *   lr 1e-3, β 0.3:  +19.2 (6), −8.3
 *   lr 3e-4, β 0.04: +25.3 (5), −17.8
 *   lr 1e-4, β 0.04: +21.8 (6), −4.3
 *   lr 3e-4, β 0.3:  +23.2 (5), −3.0 (these)
 * With the grouped head GRPO's negative advantages on failures reach the intent head, and on
 * successes a confident DA samples one action K times (zero advantage), so only the KL term keeps
 * what it already routes well.
 *
 * The DA of hidden 256 and weight decay 0.5 (issue 20) opens stronger: at 240 pressure steps
 * W_DA opened at 69% on average over seeds 1–10 and the DA trained in 4 of 10 seeds (seeds 1–6:
 * 2, W_DA non-monotonic in 1). CA0 pressure chosen again on the arena alone, seeds 1–6: 320 steps
 * 3 trained / 2 non-monotonic, 400 steps 5 / 3 (these), 480 steps 5 / 2.
 *
 * The CA's gyms then moved W_DA by −1.8 points on average, although a CA that says, for each
 * intent, the one opening chosen best on half of a match's episodes would have held the retrained
 * DA to W_DA 62.5% on the other half (seed 1, match 4: DA4 88.2% against the gym's CA; `sparring
 * best-response`): the CA's gym does not find what its action space allows. Half of its decision
 * points are answer turns whose K rewards are all equal (99%), and so are 58–69% of its openings
 * (a third in CA0's pressure).
 * Chosen on the arena alone, seeds 1–6 (DA trained / W_DA non-monotonic / ΔW_DA after a CA gym):
 *   60 steps (was)                       5 / 3 / −1.8
 *   60 steps, oversample 2               4 / 2 / −2.0
 *   60 steps, β 0.01                     4 / 2 / −2.2
 *   200 steps                            5 / 3 / −2.0
 *   200 steps, oversample 2 (these)      6 / 4 / −4.2
 *   200 steps, oversample 4              6 / 4 / −4.8 (twice the gym's rollouts of these)
 * Checked with these afterwards, not kept: β 0.01 4 / 2 / −3.2; lr 6e-3 6 / 4 / −4.4.
 * A release later, seeds 1–10 (DA trained / non-monotonic / ΔW_DA after a CA gym / after a DA
 * gym), against these 10 / 7 / −4.2 / +27.3, not kept: CA0 pressure of 320 steps 9 / 7 / −4.5 /
 * +27.3; DA gyms of 120 steps 10 / 7 / −4.7 / +29.5 (per seed, from W_DA in whole points, +2.2
 * [−1.6, 6.0]). Seeds whose W_DA opens at or below 62.5% (2, 5, 8) train the DA first, and no CA
 * gym here pulls the retrained DA's 84–92% back below it, so 7 of 10 is what these seeds allow.
 * Also not kept, seeds 1–10: K 16 with 100 steps (the same rollouts per gym) 10 / 7 / −3.6 (27
 * CA gyms) against these 10 / 7 / −4.0 (29), measured on one machine by the same script; and
 * GRPO's entropy bonus on the CA's gyms (`entropyCoef`, against a head that settles where the
 * retrained DA no longer pays it) 0.02: 10 / 7 / −4.4 (26), 0.1: 7 / 4 / −3.6 (26).
 * Then a phrasing head (models/ca-net.ts: the CA chooses which of the bank's sentences of its
 * directness it opens with, one drawn at random or the 1st to 4th; 8,640 openings instead of
 * 1,728), seeds 1–10, with CA0 pressure chosen again for it on the arena alone:
 *   400 steps   10 / 7 / −8.6 (31 CA gyms) / +32.3 (13 DA gyms)
 *   320 steps   10 / 6 / −6.7 (27) / +31.5 (10)
 *   240 steps   10 / 9 / −7.9 (29) / +33.1 (11) (these)
 * Its CA gyms pull W_DA about twice as far as before. With strong pressure, CA0 already beats DA0
 * on more seeds (W_DA opens at or below 62.5% on 4 of 10 at 400 and 320 steps), those train the DA
 * first, and after the DA's gym the CA's gyms settle W_DA a little above 62.5%, where the stopping
 * rule ends the run. At 240 steps seeds 2 and 8 open there (on seed 2 the CA's gyms then pull the
 * retrained DA back below it); on the others the CA's first gyms bring W_DA below 62.5%, the DA
 * trains and W_DA recovers.
 *
 * Then the gym's data and the DA gym's length (`gym.matches`, the run's latest matches pooled
 * before the failure mix; `gym.da.steps`), chosen on the arena alone, seeds 1–10, `full`: routing
 * and strict PASS of a match's 180 episodes, first match (DA0 against CA0) → last (the final DA
 * against the final CA), per-seed difference [95% t], and the last match paired against the
 * preset before (same seeds, same first match):
 *                                       routing gain         strict gain          paired routing / strict
 *   1 match, 60 steps (was)             +7.0 [−1.6, 15.6]    +4.2 [−2.3, 10.6]
 *   1 match, 20 / 30 steps              +1.4 / +6.8          −2.1 / +4.2
 *   1 match, 120 steps                  +8.2 [−0.4, 16.9]    +4.1 [−3.0, 11.1]    +1.2 [−6.5, 8.9] / −0.1
 *   2 / 3 / 8 matches, 60 steps         +7.7 / +9.3 / +8.0   +4.4 / +4.8 / +3.4   +0.7 / +2.3 [−4.6, 9.3] / +1.0
 *   3 matches, 120 steps (these)        +16.2 [7.6, 24.8]    +10.6 [5.1, 16.0]    +9.2 [0.4, 18.0] / +6.4 [−0.4, 13.2]
 *   3 matches, 240 steps                +13.6 [6.0, 21.1]    +11.0 [4.9, 17.1]    (against these −2.7 [−10.1, 4.7] / +0.4)
 * Neither alone moves the last match: a longer gym on one match's transcripts, nor more matches
 * at 60 steps; together they do. In every row the DA trains in 10 of 10 seeds and W_DA drops and
 * recovers in 10 of 10 (these: 1.3 DA gyms a seed, ΔW_DA −8.5 after a CA gym, +36.9 after a DA
 * gym). Also tried with these, not kept: the judge's unresolved episodes among the DA's failures
 * (`gym.daFailure` 'unresolved', which puts the routed disputes the DA ended without retrying in
 * its gym's 70% share): +11.5 / +7.8, against these −4.7 [−13.5, 4.1] / −2.7 [−9.9, 4.5], and
 * routed-but-unresolved episodes of the last match 30.3 per seed (these 33.9): at T = 1 the gym
 * still does not draw the retry. With `gym.da.temperature` 4 on top: +11.3 / +7.6, against these
 * −4.9 [−15.6, 5.8] / −2.9 [−10.7, 4.8], 30.3 such episodes per seed: not drawn either.
 * A release later, the DA gym's dynamic sampling (`oversample`, DAPO; on seed 1 82.5% of a DA
 * gym's GRPO groups had no reward variance, EAU's degenerate-gym diagnostic), the same seeds and
 * measures, not kept: oversample 2 +11.2 [3.9, 18.6] / +9.4, against these −5.0 [−11.8, 1.8] /
 * −1.1 [−6.7, 4.5]; oversample 4 +14.4 [6.0, 22.8] / +8.8, against these −1.8 [−9.0, 5.3] / −1.8
 * [−8.1, 4.5] (DA trained and W_DA non-monotonic 10 of 10 in both; 26.9 and 33.8 such episodes).
 * A release later, where most unresolved disputes begin: of the last matches' dispute episodes the
 * DA routed but left unresolved, most opened without a merchant or an amount, so dispute_charge
 * answered INVALID_ARGUMENTS. At their first decision (seeds 1–6, 192 such episodes), asking first
 * and then playing on greedily against the frozen final CA (speaking the whole bank, as a CLI
 * policy does without `match --run`; only its answers came from it) earns a decision reward of
 * 4.19–6.65 per seed (147 resolved) against 1.00–1.05 for lookup_account (none resolved), and the
 * final DA holds `ask` only 2–6 nats below lookup_account there. Yet the preset's gyms moved it further
 * down: the per-run median gap widened from DA0 to the final DA in 10 of 10 seeds (median
 * 3.92 → 4.73 nats). GRPO divides by the group's reward std (advEps 1e-4), so where asking only
 * costs the −0.05 speak term (rewards 1.00 × 15 and 0.95 once) the asker's Â is about −3.8, as
 * large as the +3.8 of an ask worth +4.5, and such harmless states are most of the first
 * decisions (Dr. GRPO's objection to std normalisation; TRL's `scale_rewards`, verl's
 * `norm_adv_by_std_in_grpo`). A floor on the std (`gym.da.advEps`) reverses that — with 1 the gap
 * narrowed in 10 of 10 seeds (median 4.23 → 2.81) — but did not pay on the arena (seeds 1–10,
 * `full`, the measures above; the preset as is +16.2 / +10.6, 33.9 such episodes), none kept:
 *   advEps 0.3                              +11.0 [4.7, 17.3]   +10.5 [3.4, 17.6]   −5.2 [−11.4, 1.0] / −0.1   24.6
 *   advEps 1                                +10.9 [4.7, 17.1]   +10.0 [4.9, 15.1]   −5.3 [−10.8, 0.2] / −0.6   25.3
 *   advEps 1, β 0.15                        +12.1 [3.9, 20.2]   +12.3 [5.0, 19.6]   −4.2 [−11.1, 2.8] / +1.8   23.2
 *   advEps 0.3, gym.daFailure 'unresolved'   +9.3 [2.2, 16.3]   +11.6 [5.6, 17.5]   −6.9 [−13.6, −0.3] / +1.0  19.5
 *   advEps 1, gym.daFailure 'unresolved'    +11.3 [5.2, 17.3]   +14.3 [7.2, 21.5]   −4.9 [−13.9, 4.0] / +3.8 [−4.4, 11.9]  18.2
 *   the same, β 0.15                         +8.3 [0.9, 15.7]   +13.3 [5.7, 20.9]   −7.9 [−15.0, −0.8] / +2.7  14.8
 *   the same, lr 6e-4 (β 0.3)                +3.4 [−2.6, 9.5]    +7.2 [0.3, 14.0]   −12.8 [−18.8, −6.8] / −3.4  17.0
 * (routing gain, strict gain, last match against the preset's routing / strict, unresolved routed
 * disputes of the last match per seed). Fewer disputes are left unresolved and strict PASS moves a
 * little, but the last match routes 4–13 points less on every row: the DA's gyms lift W_DA less
 * (a run's highest W_DA 86.0–91.1% on average against 92.6%, first five rows) and the runs end
 * lower (last W_DA 76.3–79.7% against 84.3%). The DAs do ask first now (86–360 of a last match's
 * 1,800 episodes over the 10 seeds, against 7), and the CA answers the question: those episodes
 * route 62–78% (the rest 76–84%, the preset's 87%), a new surface for the CA's gyms.
 * Also not kept (same seeds and measures): the DA's bag length 512 instead of 256 (87% of arena
 * openings overflow 256 slots, character 4-grams cut first): +9.7 [−0.3, 19.7] / +8.6 [0.1, 17.0],
 * against the preset +0.9 [−6.1, 8.0] / +2.8 [−3.4, 9.1] (DA0 opens stronger).
 * A release later, a second arena-only measure, closer to what held-out evaluation reports: DA0 and
 * the final DA each against the run's final CA on the arena scenarios, the CA speaking the run's
 * train slice of the bank (`sparring match --run R --seed 1000+seed`, 18 episodes per scenario).
 * First match → last compares the final DA against the final CA with DA0 against CA0, so it marks
 * a stronger CA down; this does not. The preset as is: routing +22.7 [16.2, 29.1], strict PASS
 * +16.2 [11.6, 20.8] (the final DA 86.0 / 66.4%). Not kept, the same seeds and arm (first → last
 * routing / strict gain; this measure's routing / strict gain; its routing gain paired against
 * the preset's):
 *   gym.da.promptsPerStep 32    +15.6 / +10.5   +25.1 / +17.3   +2.4 [−5.2, 10.1]
 *   gym.da.K 32                 +13.8 / +9.1    +22.7 / +15.3   +0.0 [−6.4, 6.4]
 *   gym.da.klBeta 0.15          +13.1 / +7.9    +20.1 / +12.8   −2.6 [−10.5, 5.3]
 *   gym.da.lr 6e-4              +8.3 / +3.6     +17.7 / +11.7   −4.9 [−13.3, 3.4]
 *   gym.matches 5               +11.7 / +6.1    +18.8 / +13.1   −3.9 [−10.1, 2.3]
 *   gym.ca.steps 400            +6.5 / +1.8     +16.3 / +10.6   −6.4 [−15.2, 2.4]
 *   gym.ca.K 16                 +9.7 / +5.3     +17.5 / +10.6   −5.2 [−10.5, 0.1]
 * A stronger CA gym lowers both measures: the final DA ends weaker against it (75.3 and 79.8%
 * against 86.0%) by more than DA0 does.
 * A release later, transfer to wording a run never saw, without reading the held-out slice: runs
 * that keep a fifth of the train slice out of everything they train on (`validation.bankShare`
 * 0.2), DA0 and the final DA against the run's final CA on the arena scenarios, the CA speaking
 * those validation sentences or the run's train slice (`match --run R --speak validation|train
 * --seed 1000+seed`, 18 episodes per scenario; `sparring study estimate S --speak …` prints these). Seeds 1–10, `full` (routing / strict gain on the
 * validation sentences; on the train slice; routing gain paired against the first row, validation
 * / train):
 *   validation.bankShare 0.2        +8.6 / +6.2     +23.2 / +16.7
 *   + gym.daWordDropout 0.15        +10.8 / +8.9    +22.2 / +16.5   +2.3 [−2.6, 7.2] / −1.0 [−7.6, 5.6]
 *   + gym.daWordDropout 0.3         +11.4 / +10.1   +22.8 / +17.4   +2.8 [−3.9, 9.5] / −0.4 [−9.7, 8.9]
 *   + gym.daWordDropout 0.5         +6.0 / +5.8     +16.8 / +13.9   −2.6 [−8.5, 3.4] / −6.4 [−13.2, 0.4]
 * On sentences it never saw the DA routes far worse (DA0 39.4% against 61.6% on the train slice,
 * the final DA 47.9% against 84.7%) and gains about a third as much. Word dropout on what the DA
 * reads in its gyms moves that gain by less than the noise and the train-slice gain not at all;
 * held-out evaluation's CA speaks the whole bank, 85% of it the train slice, so its expected
 * change is near 0. None kept.
 * Also on those runs, ε-greedy exploration in the DA's gyms (`gym.da.explore`, core/rl/grpo.ts),
 * so that a gym tries the retry of a dispute call that T = 4 never drew (first → last routing /
 * strict gain; train-slice measure; its routing gain paired against the first row; routed but
 * unresolved disputes of the final DA's train-slice match per seed, the first row 36.2):
 *   gym.da.explore 0.1     +2.7 / +0.4    +17.2 / +12.2   −5.9 [−13.6, 1.8]   29.7
 *   gym.da.explore 0.25    +2.4 / −0.8    +19.1 / +13.1   −4.1 [−13.1, 4.9]   31.8
 * (the first row +12.8 / +7.0 first → last). Not one retry of a dispute call in any match of
 * either, against 15 episodes with one in the first row's matches: drawn uniformly, the retry
 * comes mostly right after INVALID_ARGUMENTS, before the customer has named the charge, where it
 * fails again, and the gym learns to avoid it. Not kept.
 * A release later, the same question with every valid action tried at every decision point
 * (`gym.da.enumerate`) and with GRPO's trust region reading KL over the policy's own draws only:
 * before that fix the replaced rows' k3 read an action the reference holds 10 nats down as a
 * 10-nat divergence, and `maxKl` ended enumerate's DA gyms after 20–45 of their 120 steps (it
 * may have cut the ε-greedy gyms above short too). In the routed-but-unresolved episodes of the
 * last matches the customer answers the DA's explanation with the charge ("the $84.99 payment at
 * AMZN MKTP last Friday") and the DA ends the call. Seeds 1–10, `full` and the others as custom
 * arms of one study (`--arm`), the train-slice estimate (DA0 → final routing; gain routing /
 * strict PASS; each paired against `full`; retries of a failed dispute call over all of a run's
 * arena matches):
 *   full (these)                              63.3 → 86.0   +22.7 / +16.2                                    0
 *   gym.da.enumerate                          57.4 → 78.4   +20.9 / +17.1   −1.7 [−8.3, 4.9] / +0.9 [−4.2, 6.0]   0
 *   gym.da.explore 0.25 (KL fixed)            58.4 → 76.9   +18.5 / +14.3   −4.2 [−13.1, 4.7] / −1.8 [−8.6, 5.0]   0
 *   gym.da.explore 0.1 (KL fixed; a release later, paired against the same `full` runs)
 *                                             58.1 → 79.3   +21.2 / +15.1   −1.4 [−7.8, 4.9] / −1.1 [−6.0, 3.9]   0
 *   enumerate, gym.daFailure 'unresolved'     57.8 → 77.2   +19.4 / +17.6   −3.3 [−8.5, 2.0] / +1.4 [−3.6, 6.4]   16 (seeds 2, 7)
 *   the same, gym.da.steps 240                58.7 → 78.4   +19.7 / +18.5   −3.0 [−11.0, 5.0] / +2.3 [−3.7, 8.4]  50 (seeds 2, 6, 7)
 * With the unresolved disputes among the gym's failures the retry starts to appear (16 episodes
 * of the runs' matches, 12 of them resolved; 2 more in seed 4's estimate match), but a retry
 * state is one decision point of an unresolved episode's several and the retry starts 8–20 nats
 * down (2–5 in π_T at T = 4, above), so a 120-step gym moves it on few seeds. With twice the
 * steps there are more (50, 47 resolved, 44 of them on seed 7) and strict PASS gains a little
 * while routing loses a little, neither beyond the seeds' spread. Not kept.
 * A release later, the CA's side: why it withholds details instead of burying its need in them
 * (RL-ADA's camouflage). Seeds 1–20, `full`, the train-slice estimate, each paired against this
 * preset's 20-seed study (its routing gain +17.9 [14.1, 21.8], strict +16.8 [13.0, 20.6]):
 *   a withholding opening keeping its detail clause (a one-line change to ca-choices.ts's
 *   openingTemplate, the scripted CA's openings unchanged)
 *                                  +14.0 / +11.3   −3.9 [−9.4, 1.6] / −5.6 [−11.1, 0.0]
 *   gym.caDecisions 'openings'     +15.2 / +13.9   −2.7 [−8.3, 2.8] / −3.0 [−8.8, 2.9]
 *   gym.ca.steps 100               +14.8 / +14.2   −3.1 [−7.9, 1.7] / −2.6 [−7.2, 2.0]
 * (the DA trained in 19, 20 and 16 of the 20 seeds, this preset's in 20). The last is a weaker CA
 * gym, where 400 steps above was a stronger one: 0.80 DA gyms a seed against 1.15, and the final
 * DA no stronger against its weaker CA (83.1 against 85.9%).
 * None is kept, and neither of the first two brought dense detail (`sparring study ca-policy`, CA0
 * → the last match's CA, mean probability over openings): with the detail clause kept the CA states less, not
 * more (detail 0 0.25 → 0.58, up in 17 of 20 seeds; detail 3 0.24 → 0.08, down in 20 of 20) and
 * withholding no longer moves (0.51 → 0.54); with its gyms on openings only it withholds as here
 * (0.54 → 0.83, up in 19 of 20). So it is not the action space's coupling of withholding and
 * detail, nor what answers pay, that keeps the detail out: the CA's gym, scoring a forced opening
 * against the frozen DA, finds less detail pays. `sparring best-response` on the first variant's
 * first matches (CA0 against DA0, which the first CA gym trains against), seeds 1 and 4:
 * switching the greedy opening's detail to 0 / 1 / 2 / 3 gives the CA 21.5 / 31.9 / 27.1 / 22.9%
 * of the 144 replayed episodes in seed 1 (CA0 picks 1) and 43.1 / 32.6 / 38.9 / 38.9% in seed 4
 * (CA0: 1 in 87.5%), while over every choice alike more detail wins more (seed 4: 10.6 / 15.9 /
 * 16.6 / 20.0%). Beside what the CA already holds (a vague need after the context, a decoy cue)
 * the details undo the decoy: a merchant and an amount point back to the true tool. On the last
 * matches (the final DA) the same switch gives 22.2 / 36.1 / 27.1 / 23.6% in seed 1 (its CA:
 * detail 1 in 62.5%) and 13.2 / 15.3 / 18.1 / 18.1% in seed 4 (its CA: 0 or 1 in 87.5%): the
 * detail left out against DA0 is not taken back once it would pay a little.
 * A release later, where the held-out gain goes: on held-out scenarios that share an intent with
 * the arena routing gains +18.8 [11.6, 25.9], on those whose intents the arena never plays +3.5
 * [−2.5, 9.5] (seeds 1–10, `study show`'s reach table; read after the fact, nothing chosen on it).
 * The measure that shows it without held-out data: `study estimate --scenarios other-intents`
 * (DA0 and the final DA against the final CA on synthetic scenarios of half of the intents no arena
 * or held-out scenario names; 38 intents, 8 episodes each), where this preset gains +0.6 [−4.1,
 * 5.3] (seeds 1–10) and +1.4 [−1.1, 3.8] (1–20). `gym.daOtherIntents` has each DA gym also play
 * the other half of those intents (25) against its frozen CA and pool those episodes with the
 * arena's. Judged by a rule set after the first candidate's results (8) and before the others':
 * keep it if 7/12 × the arena routing gain + 5/12 × the other-intents gain (the held-out set's
 * shares of the two kinds of scenario; this preset's +11.9 at seeds 1–10 against its held-out
 * +12.4) rises with a paired interval above 0.
 * Arena-only studies, `full` seeds 1–10 (train slice; routing / strict PASS gain paired against
 * `full`; other-intents gain paired; the composite paired):
 *   daOtherIntents 4    −0.9 [−4.5, 2.7] / −2.9 [−7.6, 1.7]     +5.5 [+1.6, +9.4]    +1.8 [−1.0, 4.6]
 *   daOtherIntents 8    −1.9 [−7.9, 4.0] / −5.6 [−13.8, 2.7]    +4.9 [−0.4, +10.1]   +0.9 [−4.4, 6.2]
 *   daOtherIntents 18   +1.6 [−6.6, 9.7] / −3.1 [−14.5, 8.3]    +7.2 [+2.6, +11.9]   +3.9 [−2.2, 10.0]
 * and the last again on seeds 11–20: −3.5 [−13.4, 6.4] / −7.6 [−17.6, 2.3], other intents +0.1
 * [−6.0, 6.2], composite −2.0 [−10.0, 6.0]; over seeds 1–20 −1.0 [−6.9, 4.9] / −5.4 [−12.3, 1.5],
 * +3.7 [−0.2, 7.5], composite +1.0 [−3.8, 5.7]. The first ten seeds' transfer did not replicate;
 * strict PASS drops on the arena in every row. Not kept.
 */
export const PAPER_FAITHFUL_GYMS = {
  caPressureSteps: 240,
  da: { ...PAPER_GYM_DA, lr: 3e-4, klBeta: 0.3, steps: 120 },
  ca: { ...PAPER_GYM_CA, lr: 3e-3, steps: 200, oversample: 2 },
  /** The run's latest arena matches a gym's data pools (`gym.matches`). */
  matches: 3,
} as const;

/**
 * The `quick` preset: the README's first command, so it must show the method at work in about
 * 30 s on 2 cores: the CA's gyms lower W_DA, the DA trains, and its gym raises W_DA again.
 *
 * Before issue 52 it did not. Its DA0 (SFT with a camouflaged variant of every train sentence, 2
 * epochs) opened at W_DA 95.8% on seed 1, and its 4-step CA gyms (8 decision points a step)
 * brought that only to 79.2% in the 3 matches n_max allowed. The DA trains only when it is the
 * weaker agent (RL-ADA §3.5: τ_DA − W_DA ≥ r_CA − (1 − W_DA), so W_DA ≤ (τ_DA + 1 − r_CA) / 2 =
 * 62.5% here), so the DA never trained, every run's final DA was DA0, and a quick study's arms
 * (`full`, `no-ca-training`) gave the same W_DA, the same held-out figures and paired
 * differences of 0.0 [0.0, 0.0]. Its 4-step DA gyms at lr 1e-4 would hardly have moved DA0 had
 * they run (two DA checkpoints of such a gym were equal on every held-out row).
 *
 * Chosen on the arena alone (W_DA per match; nothing held out read), seeds 1–2 (1–4 for b),
 * `full`, CPU seconds of the whole `sparring run` process (user + sys; the machine was shared, so
 * wall times were longer), W_DA per match:
 *   as before                        seed 1: 95.8 91.7 79.2 (DA trained 0)                  11.1 s
 *   a: no camouflaged SFT, 20-step gyms (DA lr 3e-4, β 0.3), 3 episodes per scenario, n_max 5
 *                                    seed 1: 66.7 79.2 62.5 58.3 54.2 (DA gyms lowered it)   —
 *   b: as a with 6 episodes per scenario, 20-step CA0 pressure, 30-step CA gyms, DA gyms of
 *      20 steps × 8 at lr 1e-3, β 0.04
 *                                    seed 1: 77.1 68.8 56.3 | 66.7 60.4                     22.6 s
 *                                    seed 2: 60.4 | 56.3 | 68.8 77.1 50.0                   26.5 s
 *                                    seed 3: 66.7 52.1 | 68.8 41.7 | 56.3                   26.6 s
 *                                    seed 4: 77.1 75.0 60.4 | 54.2 | 60.4                   28.8 s
 *   c: as b with DA gyms of 30 steps × 16 (these)
 *                                    seed 1: 77.1 68.8 56.3 | 75.0 70.8                     32.1 s
 *                                    seed 2: 60.4 | 79.2 75.0 (converged)                   21.8 s
 * ("|": a DA gym between the two matches; every other gap a CA gym.) With b a DA gym moved W_DA
 * by +10.4; −4.1, +12.5; +16.7, +14.6; −6.2, +6.2 (seeds 1–4); with c by +18.7 and +18.8. W_DA is a rate over 48 episodes (8
 * scenarios × 6; the fraud-reference ones are not counted), so one episode moves it 2.1 points:
 * large enough to see a gym's effect in one run, too small to compare two settings without a
 * study. The held-out evaluation stays small (12 episodes against each opponent).
 */
const QUICK_CONFIG: RunConfig = {
  arena: { episodesPerScenario: 6, maxDaTurns: DEFAULT_CONFIG.arena.maxDaTurns },
  stopping: { ...DEFAULT_CONFIG.stopping, nMax: 5 },
  bootstrap: {
    sft: { epochs: 2, batchSize: 64, lr: 3e-3, expertEpisodesPerIntent: 1, camouflaged: 0 },
    daWarmup: { ...PAPER_GYM_DA, steps: 3, promptsPerStep: 8 },
    caPressure: { ...PAPER_GYM_CA, steps: 20, promptsPerStep: 8, lr: 3e-3, oversample: 2 },
  },
  gym: {
    da: { ...PAPER_GYM_DA, steps: 30, promptsPerStep: 16, lr: 1e-3 },
    ca: { ...PAPER_GYM_CA, steps: 30, promptsPerStep: 8, lr: 3e-3, oversample: 2 },
    failureShare: 0.7,
    matches: 3,
  },
  eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 2 },
};

/**
 * The `smoke` preset: `quick` as it was before issue 52, the smallest run that exercises every
 * phase (bootstrap, matches, both gyms' code paths, held-out evaluation). Its DA0 opens above the
 * weaker-agent bound, so its DA never trains: it checks plumbing (installs, CI, the many tests
 * that need "a run"), not the method.
 */
const SMOKE_CONFIG: RunConfig = {
  arena: { episodesPerScenario: 3, maxDaTurns: DEFAULT_CONFIG.arena.maxDaTurns },
  stopping: { ...DEFAULT_CONFIG.stopping, nMax: 3 },
  bootstrap: {
    sft: { epochs: 2, batchSize: 64, lr: 3e-3, expertEpisodesPerIntent: 1, camouflaged: 1 },
    daWarmup: { ...PAPER_GYM_DA, steps: 3, promptsPerStep: 8 },
    caPressure: { ...PAPER_GYM_CA, steps: 4, promptsPerStep: 8 },
  },
  gym: { da: { ...PAPER_GYM_DA, steps: 4, promptsPerStep: 8 }, ca: { ...PAPER_GYM_CA, steps: 4, promptsPerStep: 8 }, failureShare: 0.7 },
  eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 2 },
};

/**
 * The run presets, the one table of them (the CLI, the app and studies read it): `paper` is
 * faithful to RL-ADA's bootstrap, `robust` is a stronger SFT recipe at the same run size, `quick`
 * is a first look at co-evolution, and `smoke` the smallest run for checking an install.
 */
export const PRESETS: Record<'paper' | 'robust' | 'quick' | 'smoke', { description: string; config: RunConfig }> = {
  paper: {
    description:
      'RL-ADA: DA0 = SFT on plain routing demos + GRPO warm-up; 10 scenarios × 18 episodes per match, τ_DA 0.60, P 2, ε 0.05, n_min 3, n_max 8; K 16 (DA) / 8 (CA); each gym on the latest 3 matches',
    config: {
      ...robustShape(paperSft),
      bootstrap: { sft: paperSft, daWarmup: { ...PAPER_GYM_DA, steps: 30 }, caPressure: { ...PAPER_GYM_CA, steps: PAPER_FAITHFUL_GYMS.caPressureSteps } },
      gym: { da: PAPER_FAITHFUL_GYMS.da, ca: PAPER_FAITHFUL_GYMS.ca, failureShare: 0.7, matches: PAPER_FAITHFUL_GYMS.matches },
    },
  },
  robust: {
    description: 'an SFT recipe, not the method: DA0 also trained on camouflaged openings and against a camouflaged customer; the paper run size',
    config: robustShape(robustSft),
  },
  quick: {
    description:
      'small and fast, a first look at co-evolution (~30 s on 2 cores): 6 episodes per scenario, at most 5 matches; a CA gym lowers W_DA, a DA gym raises it',
    config: QUICK_CONFIG,
  },
  smoke: {
    description:
      'the smallest whole run (~10 s on 2 cores), to check an install or a pipeline: 3 episodes per scenario, at most 3 matches, 4-step gyms; too small for the DA to train, so it shows no co-evolution',
    config: SMOKE_CONFIG,
  },
};

/**
 * IB-RL's schedule settings (../shared/seeds/003, §5.1), the defaults of a `"kind": "ib-rl"`
 * schedule: the opponent pool p_both = 0.7, p_agent1 = 0.2 (the DA, the paper's sales agent,
 * against a historical CA), p_agent2 = 0.1 (the CA, the paper's user, against a historical DA);
 * staggered updates with the user at half the agent's frequency. The paper's user also learns at a
 * tenth of the agent's rate (1e-7 vs 1e-6); here each role's rate defaults to its gym budget's lr
 * (`stagger.daLr` / `stagger.caLr` set them).
 */
export const IB_RL_DEFAULTS = {
  pool: { pBoth: 0.7, pDa: 0.2, pCa: 0.1 },
  stagger: { daEvery: 1, caEvery: 2 },
  /** The user's (CA's) rate over the agent's in the paper (1e-7 / 1e-6): the study's `ib-rl` arms set caLr = this × gym.ca.lr. */
  caLrFactor: 0.1,
} as const;
