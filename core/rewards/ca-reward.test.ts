import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import { formatDaAction } from '../wire';
import type { Transcript, Turn } from '../world/transcript';
import { caRewards, isNaturalLanguage, realismScore, revealsIntent } from './ca-reward';

const cfg = DEFAULT_CONFIG.caReward;
const call = (tool: string): Turn => {
  const action = { thinking: 't', action_type: 'tool_call' as const, content: tool, tool_args: {} };
  return { role: 'agent', raw: formatDaAction(action), action, toolResult: { ok: true, tool, data: {} } };
};
const ep = (opening: string, routed: string): Transcript => ({
  scenarioId: 's',
  expectedTool: 'dispute_charge',
  intent: 'duplicate_charge',
  endReason: 'end_call',
  turns: [{ role: 'customer', text: opening }, call('lookup_account'), call(routed)],
});

describe('r_CA', () => {
  it('rewards a misroute with +1 and penalises correct routing with −1 (r_inv-DA)', () => {
    expect(caRewards(ep('I think something went wrong with my coffee order.', 'transfer_to_human'), [], cfg).total.inv_da).toBe(1);
    expect(caRewards(ep('I think something went wrong with my coffee order.', 'dispute_charge'), [], cfg).total.inv_da).toBe(-1);
  });

  it('penalises naming the intent (r_conceal)', () => {
    const reveals = ['charged twice', 'duplicate charge'];
    expect(revealsIntent('They CHARGED me twice? No, they charged twice.', reveals)).toBe(true);
    expect(caRewards(ep('I was charged twice for one coffee.', 'dispute_charge'), reveals, cfg).total.conceal).toBe(-1);
    expect(caRewards(ep('My coffee shows up two times, odd.', 'dispute_charge'), reveals, cfg).total.conceal).toBe(0);
  });

  it('rewards natural language and punishes JSON (r_format)', () => {
    expect(isNaturalLanguage('{"action_type":"speak"}')).toBe(false);
    expect(isNaturalLanguage('   ')).toBe(false);
    expect(caRewards(ep('{"text":"hi"}', 'dispute_charge'), [], cfg).total.format).toBe(cfg.formatBad);
    expect(caRewards(ep('Hi, I have a question about my card.', 'dispute_charge'), [], cfg).total.format).toBe(cfg.formatNatural);
  });

  it('scores a customer voice above an agent voice (signed r_realism)', () => {
    expect(realismScore('I noticed a payment on my card that looks off.')).toBeGreaterThan(0);
    expect(realismScore('Thank you for calling, how can I help you today?')).toBeLessThan(0);
    const r = caRewards(ep('How can I help you today? Let me check your account.', 'dispute_charge'), [], cfg);
    expect(r.total.realism).toBeLessThan(0);
    expect(r.total.realism).toBeGreaterThanOrEqual(-cfg.realismScale);
  });
});
