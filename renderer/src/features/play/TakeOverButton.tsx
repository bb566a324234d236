/** The Transcripts screen's per-turn button: continue the episode yourself from this turn (Play screen). */
import { navigate } from '../../nav/nav-store';

export function TakeOverButton({ episodeId, turn }: { episodeId: string; turn: number }) {
  return (
    <button
      className="btn tiny"
      title="Continue this episode yourself from this turn"
      onClick={() => navigate('play', null, { fork: episodeId, turn: String(turn) })}
      data-testid="take-over"
    >
      Take over
    </button>
  );
}
