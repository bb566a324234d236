/** The app's location lives in the URL hash (the query string carries web mode's token). */

export const SCREENS = ['experiments', 'studies', 'runs', 'arena', 'transcripts', 'evaluation', 'export', 'play', 'annotate', 'audit', 'models'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Route {
  screen: Screen;
  /** The run of `runs` and `evaluation`. */
  id: string | null;
  /** Extra state (transcript filters, selected episode). */
  params: Record<string, string>;
}

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [pathPart = '', query = ''] = raw.split('?', 2);
  const [first = '', ...rest] = pathPart.split('/').filter(Boolean);
  const screen = (SCREENS as readonly string[]).includes(first) ? (first as Screen) : 'experiments';
  const id = rest.length ? decodeURIComponent(rest.join('/')) : null;
  const params: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(query)) params[k] = v;
  return { screen, id: screen === first ? id : null, params };
}

export function formatRoute(r: { screen: Screen; id?: string | null; params?: Record<string, string | undefined> }): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(r.params ?? {})) if (v !== undefined && v !== '') q.set(k, v);
  const qs = q.toString();
  return `#/${r.screen}${r.id ? `/${encodeURIComponent(r.id)}` : ''}${qs ? `?${qs}` : ''}`;
}
