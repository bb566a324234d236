import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute } from './route';

describe('hash routes', () => {
  it('parses screens, ids and params, defaulting to experiments', () => {
    expect(parseRoute('')).toEqual({ screen: 'experiments', id: null, params: {} });
    expect(parseRoute('#/nowhere/x')).toEqual({ screen: 'experiments', id: null, params: {} });
    expect(parseRoute('#/runs/R%2F1')).toEqual({ screen: 'runs', id: 'R/1', params: {} });
    expect(parseRoute('#/transcripts?match=M1&winner=CA')).toEqual({ screen: 'transcripts', id: null, params: { match: 'M1', winner: 'CA' } });
  });

  it('round-trips, dropping empty params', () => {
    const r = { screen: 'transcripts' as const, id: null, params: { match: 'M1', episode: 'M1:3' } };
    expect(parseRoute(formatRoute(r))).toEqual(r);
    expect(formatRoute({ screen: 'evaluation', id: 'R 2', params: { x: '', y: undefined } })).toBe('#/evaluation/R%202');
  });
});
