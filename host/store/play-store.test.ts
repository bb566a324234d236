/** The play store on SQLite: drafts round-trip and update, a finish is all or nothing, marks filter by seat and time. */
import { describe, expect, it } from 'vitest';
import { fakeMatch } from '../../test/support/store-contract';
import { playStore } from './play-store';
import type { HumanEpisodeMark, PlayDraft } from './play-store';
import { openSqliteStore } from './sqlite-store';

const draft = (id: string, updatedAt: string): PlayDraft => ({
  id,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt,
  player: 'Ada',
  seat: 'customer',
  opponent: 'scripted',
  opponentCheckpoint: null,
  scenarioId: 'dispute-unrecognized',
  seed: 7,
  configJson: '{}',
  forkedFrom: null,
  turns: [{ role: 'customer', text: 'hello' }],
});
/** A one-episode match H<n> and its mark, as the play service stores a finished episode. */
const human = (n: number, seat: 'customer' | 'agent', playedAt: string) => {
  const { match, episodes } = fakeMatch(`H${n}`, { episodes: 1, scenarios: ['card_lost'], createdAt: playedAt });
  const mark: HumanEpisodeMark = { episodeId: episodes[0]!.id, player: 'Ada', seat, opponent: 'scripted', playedAt, forkedFrom: null };
  return { match, episode: episodes[0]!, mark };
};

describe('play store', () => {
  it('saves drafts after every move, newest first, and deletes them', () => {
    const store = openSqliteStore(':memory:');
    const play = playStore(store);
    play.saveDraft(draft('P-a', '2026-01-01T00:01:00.000Z'));
    play.saveDraft(draft('P-b', '2026-01-01T00:02:00.000Z'));
    const moved = { ...draft('P-a', '2026-01-01T00:03:00.000Z'), turns: [...draft('P-a', '').turns, { role: 'agent' as const, text: '{}', toolResult: null }] };
    play.saveDraft(moved);
    expect(play.getDraft('P-a')).toEqual(moved);
    expect(play.listDrafts().map((d) => d.id)).toEqual(['P-a', 'P-b']);
    expect(play.deleteDraft('P-b')).toBe(true);
    expect(play.deleteDraft('P-b')).toBe(false);
    expect(play.getDraft('P-b')).toBeNull();
    store.close();
  });

  it("keeps the checkpoint a draft's opponent resolved to; a draft saved without one gets it once, and it never changes after", () => {
    const store = openSqliteStore(':memory:');
    const play = playStore(store);
    const latest = { ...draft('P-a', '2026-01-01T00:01:00.000Z'), opponent: 'latest' };
    play.saveDraft(latest);
    expect(play.getDraft('P-a')!.opponentCheckpoint).toBeNull();
    play.saveDraft({ ...latest, opponentCheckpoint: { name: 'DA3', id: 'DA3' } });
    expect(play.getDraft('P-a')!.opponentCheckpoint).toEqual({ name: 'DA3', id: 'DA3' });
    play.saveDraft({ ...latest, opponentCheckpoint: { name: 'DA4', id: 'DA4' } });
    expect(play.getDraft('P-a')).toEqual({ ...latest, opponentCheckpoint: { name: 'DA3', id: 'DA3' } });
    store.close();
  });

  it('stores a finished episode, its mark and the removal of its draft together, or none of them', () => {
    const store = openSqliteStore(':memory:');
    const play = playStore(store);
    play.saveDraft(draft('P-a', '2026-01-01T00:01:00.000Z'));
    const h1 = human(1, 'customer', '2026-01-01T00:02:00.000Z');
    play.finish('P-a', h1.match, h1.episode, h1.mark);
    expect(play.getDraft('P-a')).toBeNull();
    expect(play.mark(h1.episode.id)).toEqual(h1.mark);
    expect(play.nextMatchId()).toBe('H2');

    // The same match id again fails in saveMatch: the second draft and no second mark survive.
    play.saveDraft(draft('P-b', '2026-01-01T00:03:00.000Z'));
    const again = { ...h1, mark: { ...h1.mark, player: 'Bo' } };
    expect(() => play.finish('P-b', again.match, again.episode, again.mark)).toThrow(/match "H1" already exists; nothing was written/);
    expect(play.getDraft('P-b')).not.toBeNull();
    expect(play.mark(h1.episode.id)!.player).toBe('Ada');
    store.close();
  });

  it('lists human episodes by seat, played at or before a time, newest first, up to a limit', () => {
    const store = openSqliteStore(':memory:');
    const play = playStore(store);
    const eps = [
      human(1, 'customer', '2026-01-01T01:00:00.000Z'),
      human(2, 'agent', '2026-01-01T02:00:00.000Z'),
      human(3, 'customer', '2026-01-01T03:00:00.000Z'),
      human(4, 'customer', '2026-01-01T04:00:00.000Z'),
    ];
    for (const [i, h] of eps.entries()) {
      play.saveDraft(draft(`P-${i}`, h.mark.playedAt));
      play.finish(`P-${i}`, h.match, h.episode, h.mark);
    }
    const ids = (q: Parameters<typeof play.listHumanEpisodes>[0]) => play.listHumanEpisodes(q).map((m) => m.episodeId);
    expect(ids({})).toEqual(['H4:0', 'H3:0', 'H2:0', 'H1:0']);
    expect(ids({ seat: 'customer', before: '2026-01-01T03:00:00.000Z' })).toEqual(['H3:0', 'H1:0']);
    expect(ids({ seat: 'customer', limit: 1 })).toEqual(['H4:0']);
    expect(ids({ seat: 'agent' })).toEqual(['H2:0']);
    store.close();
  });
});
