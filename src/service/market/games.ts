/** The one place that says which games exist, in which order, and which can be bought in. */
import { APP_IDS, TRADABLE_APP_IDS } from '../../contract/common.js';
import type { Game } from '../../contract/market.js';

/** Every game of the marketplace, CS2 first. Rust is readable but not yet buyable. */
export const GAMES: readonly Game[] = [
  { appId: APP_IDS.cs2, name: 'Counter-Strike 2', tradable: TRADABLE_APP_IDS.includes(APP_IDS.cs2) },
  { appId: APP_IDS.dota2, name: 'Dota 2', tradable: TRADABLE_APP_IDS.includes(APP_IDS.dota2) },
  { appId: APP_IDS.rust, name: 'Rust', tradable: TRADABLE_APP_IDS.includes(APP_IDS.rust) },
];

/** App ids of every game. */
export const ALL_APP_IDS: number[] = GAMES.map((g) => g.appId);

/** The games a set of readable app ids gives access to, in catalogue order. */
export function gamesReadableBy(appIds: readonly number[]): Game[] {
  return GAMES.filter((g) => appIds.includes(g.appId));
}
