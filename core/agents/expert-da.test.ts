/**
 * The privileged expert: on a synthetic scenario for every intent of the taxonomy, against the
 * scripted CA in the real environment, it verifies first, routes to the intent's tool, explains
 * and ends the call, and the judge finds nothing it made up.
 */
import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { judgeEpisode } from '../judge/judge';
import type { JudgeVerdict } from '../judge/types';
import { deriveSeed } from '../random';
import { lookupFirst, routedTool } from '../rewards/episode-facts';
import { expertEpisodeDemos, playExpertEpisode, routingObservation, synthScenario } from '../rl/demos';
import type { DaObservation } from '../world/environment';
import type { Turn } from '../world/transcript';
import { dialogueState } from './da-actions';
import { expertChoice } from './expert-da';
import { ScriptedCa } from './scripted-ca';
import { explainResult } from './speech';

const domain = bankingDomain();

/** The judge's findings of unsupported statements. */
function madeUp(v: JudgeVerdict): { turn: number; claim: string }[] {
  return v.hallucinations;
}

describe('ExpertDa', () => {
  it('routes every intent of the taxonomy correctly, lookup first, explained, ended, without hallucination', () => {
    const ca = new ScriptedCa(domain);
    const tiers: number[] = [];
    for (const entry of domain.taxonomy) {
      for (let k = 0; k < 2; k++) {
        const { transcript, demos } = playExpertEpisode(domain, synthScenario(entry), deriveSeed(11, entry.intent, k), ca);
        const what = `${entry.intent} #${k}`;
        expect(routedTool(transcript), what).toBe(entry.tool);
        expect(lookupFirst(transcript), what).toBe(true);
        expect(transcript.endReason, what).toBe('end_call');
        const verdict = judgeEpisode(transcript);
        expect(madeUp(verdict), `${what}: ${verdict.rationale}`).toEqual([]);
        tiers.push(verdict.tier);
        const choices = demos.map((d) => d.target.choice);
        expect(choices.slice(-3), what).toEqual([entry.tool, 'explain', 'end_call']);
        expect(demos.every((d) => d.target.intent === entry.intent)).toBe(true);
      }
    }
    // Most episodes are exemplary; the rest are honest attempts (e.g. an ambiguous duplicate charge).
    expect(tiers.length).toBeGreaterThan(domain.taxonomy.length);
    expect(tiers.filter((t) => t === 4).length / tiers.length).toBeGreaterThan(0.8);
    expect(Math.min(...tiers)).toBeGreaterThanOrEqual(2);
  });

  it('asks for the missing detail before verifying, and routes right after a successful lookup', () => {
    const opening: DaObservation = {
      caller: { phone: '+1 555 123 4567' },
      turns: [{ role: 'customer', text: 'There is a charge I do not recognise.' }],
      daSteps: 0,
      maxDaTurns: 12,
    };
    expect(expertChoice('dispute_charge', opening)).toBe('ask');
    expect(expertChoice('get_transactions', opening)).toBe('lookup_account');
    const withAmount: DaObservation = { ...opening, turns: [{ role: 'customer', text: 'There is a $42.10 charge I do not recognise.' }] };
    expect(expertChoice('dispute_charge', withAmount)).toBe('lookup_account');
    const routed = routingObservation('There is a charge I do not recognise.');
    expect(dialogueState(routed).lookup).not.toBeNull();
    expect(expertChoice('dispute_charge', routed)).toBe('dispute_charge');
  });

  it('recovers from a dispute that named no charge: its explanation asks which, and it calls again on the answer', () => {
    const routed = routingObservation('There is a charge I do not recognise.');
    const failed: Turn = {
      role: 'agent',
      raw: '',
      action: { thinking: '', action_type: 'tool_call', content: 'dispute_charge', tool_args: {} },
      toolResult: { ok: false, tool: 'dispute_charge', error: { code: 'INVALID_ARGUMENTS', message: 'identify the charge' } },
    };
    const afterCall: DaObservation = { ...routed, turns: [...routed.turns, failed] };
    expect(expertChoice('dispute_charge', afterCall)).toBe('explain');
    const question = explainResult(failed.toolResult!);
    expect(question).toMatch(/identify the charge.*\?$/);
    const asked: Turn = { role: 'agent', raw: '', action: { thinking: '', action_type: 'speak', content: question, tool_args: {} } };
    expect(expertChoice('dispute_charge', { ...afterCall, turns: [...afterCall.turns, asked] })).toBe('end_call'); // no answer yet
    const answered: DaObservation = { ...afterCall, turns: [...afterCall.turns, asked, { role: 'customer', text: 'The $42.10 one at Shell.' }] };
    expect(expertChoice('dispute_charge', answered)).toBe('dispute_charge');
    // One answer may not pin it down either: it asks and calls again, up to EXPERT_MAX_DOMAIN_CALLS calls.
    const again = (o: DaObservation): DaObservation => ({ ...o, turns: [...o.turns, failed, asked, answered.turns.at(-1)!] });
    expect(expertChoice('dispute_charge', again(answered))).toBe('dispute_charge');
    expect(expertChoice('dispute_charge', again(again(answered)))).toBe('end_call');
    // Other failures are explained, not retried.
    const refused: Turn = { ...failed, toolResult: { ok: false, tool: 'dispute_charge', error: { code: 'NOT_ALLOWED', message: 'already disputed' } } };
    expect(explainResult(refused.toolResult!)).toMatch(/wasn't able/);
    expect(expertChoice('dispute_charge', { ...answered, turns: [...routed.turns, refused, asked, answered.turns.at(-1)!] })).toBe('end_call');
  });

  it('teaches that recovery from hasty episodes: only the decisions after the failed call', () => {
    const demos = expertEpisodeDemos(domain, { episodesPerIntent: 0, recoveryEpisodesPerIntent: 1, seed: 3 });
    expect(demos.length).toBeGreaterThan(0);
    expect(demos.every((d) => dialogueState(d.obs).domainCalls.length > 0)).toBe(true);
    expect(demos.some((d) => d.target.choice === 'dispute_charge')).toBe(true); // the retry
  });

  it('plays the hasty expert against the plain customer when asked, with other episodes', () => {
    const opts = { episodesPerIntent: 0, recoveryEpisodesPerIntent: 2, seed: 3 };
    const plain = expertEpisodeDemos(domain, { ...opts, recoveryCustomer: 'plain' });
    const camouflaged = expertEpisodeDemos(domain, opts);
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.every((d) => dialogueState(d.obs).domainCalls.length > 0)).toBe(true);
    expect(plain.some((d) => d.target.choice === 'dispute_charge')).toBe(true);
    // Another customer, other words: the plain customer's answers are not the camouflaged one's.
    const said = (ds: typeof plain) => new Set(ds.flatMap((d) => d.obs.turns.filter((t) => t.role === 'customer').map((t) => t.text)));
    expect([...said(plain)].some((t) => !said(camouflaged).has(t))).toBe(true);
  });
});
