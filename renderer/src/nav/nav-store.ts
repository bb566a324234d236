/** The current route, mirrored from `location.hash`. */
import { create } from 'zustand';
import { formatRoute, parseRoute } from './route';
import type { Route, Screen } from './route';

export const useNavStore = create<Route>()(() => parseRoute(typeof location === 'undefined' ? '' : location.hash));

export const selectScreen = (s: Route) => s.screen;
export const selectRouteId = (s: Route) => s.id;
export const selectParams = (s: Route) => s.params;

export function navigate(screen: Screen, id: string | null = null, params: Record<string, string | undefined> = {}): void {
  const hash = formatRoute({ screen, id, params });
  if (location.hash !== hash) location.hash = hash;
}

/** Replace the params of the current screen without adding a history entry. */
export function replaceParams(params: Record<string, string | undefined>): void {
  const { screen, id } = useNavStore.getState();
  const hash = formatRoute({ screen, id, params });
  if (location.hash !== hash) {
    history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
    useNavStore.setState(parseRoute(hash));
  }
}

export function startNavigation(): void {
  const sync = () => useNavStore.setState(parseRoute(location.hash));
  window.addEventListener('hashchange', sync);
  sync();
}
