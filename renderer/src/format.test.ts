import { describe, expect, it } from 'vitest';
import { formatCount, formatTime, llmCost, policyLabel } from './format';

describe('formatting without Intl', () => {
  it('formats timestamps as local YYYY-MM-DD HH:MM', () => {
    const d = new Date(2026, 10, 29, 7, 5);
    expect(formatTime(d.toISOString())).toBe('2026-11-29 07:05');
    expect(formatTime('soon')).toBe('soon');
  });

  it('groups thousands', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(-1000)).toBe('−1,000');
  });

  it('labels a policy by its SPEC and, when the SPEC named another, the checkpoint it resolved to', () => {
    expect(policyLabel('latest', { name: 'DA3', id: 'DA3' })).toBe('latest → DA3');
    expect(policyLabel('DA3', { name: 'DA3', id: 'DA3' })).toBe('DA3');
    expect(policyLabel('scripted', null)).toBe('scripted');
  });

  it('sums an LLM cost as tokens in/out and the mean latency per call', () => {
    expect(llmCost({ calls: 4, cached: 0, tokensIn: 12040, tokensOut: 310, latencyMs: 170 })).toBe('12,040 in · 310 out · 42.5 ms/call');
    expect(llmCost({ calls: 2, cached: 1, tokensIn: 10, tokensOut: 2, latencyMs: 900 })).toBe('10 in · 2 out · 450 ms/call · 1 cached');
    expect(llmCost({ calls: 0, cached: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 })).toBe('0 in · 0 out · 0.0 ms/call');
    const judge = { calls: 18, cached: 0, tokensIn: 9120, tokensOut: 900, latencyMs: 100 };
    expect(llmCost({ calls: 18, cached: 0, tokensIn: 9120, tokensOut: 900, latencyMs: 100, judge })).toBe(
      '9,120 in · 900 out · 5.6 ms/call · judge 18 calls, 9,120 in',
    );
  });
});
