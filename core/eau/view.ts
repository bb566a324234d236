/**
 * The knob console's plain data (the app through core/contract, the CLI's --json): the registry
 * with each knob's current value, the audit log of writes with their measured effects, and the
 * proposals with their evidence. Built by host/engine/knobs.ts from the lab.
 */
import type { EffectMark, MeasuredEffect } from './effect';
import type { KnobOwner, WriteRule } from './knobs';
import type { KnobProposal } from './proposal';

/** The run's state when a write was made or applied. */
export interface KnobRunState {
  phase: string;
  /** Matches played. */
  matches: number;
  /** Gym metric points (gym/reward_mean) stored for the run: where the reward window splits. */
  metricStep: number;
  /** The gym (the checkpoint being trained) and its GRPO step, when applied inside a gym. */
  gym?: string;
  gymStep?: number;
}

export interface KnobView {
  id: string;
  type: 'number' | 'integer';
  min: number;
  max: number;
  unit: string;
  owner: KnobOwner;
  raisesDifficulty: 'up' | 'down' | null;
  boundary: 'step' | 'phase';
  meaning: string;
  /** The effective value now (applied writes). */
  value: number;
  /** The value once the queued writes apply (equal to value when none is queued). */
  queued: number;
  /** The value in the run's base config (before any write). */
  base: number;
}

export interface KnobWriteView {
  id: number;
  knob: string;
  value: number;
  requestedFrom: number;
  /** The value it replaced when applied (null while pending). */
  from: number | null;
  reason: string;
  by: string;
  status: 'pending' | 'applied';
  createdAt: string;
  state: KnobRunState;
  appliedAt: string | null;
  appliedState: KnobRunState | null;
  reverts: number | null;
  /** The write that reverted this one, if any. */
  revertedBy: number | null;
  proposalId: number | null;
  /** Measured once applied (core/eau/effect.ts). */
  effect: { mark: EffectMark; effects: MeasuredEffect[] } | null;
}

export interface KnobProposalView extends KnobProposal {
  id: number;
  status: 'pending' | 'accepted' | 'edited' | 'dismissed';
  createdAt: string;
  decidedAt: string | null;
  writeId: number | null;
}

export interface KnobConsole {
  runId: string;
  phase: string;
  /** W_DA of the latest match: the recent success rate the difficulty gate reads. */
  recentSuccess: number | null;
  difficultyGate: number;
  knobs: KnobView[];
  writes: KnobWriteView[];
  proposals: KnobProposalView[];
}

export type KnobWriteResult = { ok: true; write: KnobWriteView } | { ok: false; rule: WriteRule | 'writer' | 'revert'; message: string };

/** What a past run learnt about a knob (the experience pool). */
export interface KnobHistoryRow {
  runId: string;
  preset: string;
  write: KnobWriteView;
}
