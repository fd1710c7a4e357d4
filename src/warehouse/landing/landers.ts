/**
 * The registry of landed data: one lander per batch field, in the order they apply inside a batch.
 * A new kind of data is a `land-*.ts` file declaring its lander, a migration, and a line here.
 */
import { accountStatesLander, ledgerLander } from './land-account.js';
import { eventsLander } from './land-events.js';
import { fxLander } from './land-fx.js';
import { gapsLander } from './land-gaps.js';
import { goneLander } from './land-gone.js';
import { minAskLander } from './land-minask.js';
import { observationsLander } from './land-observations.js';
import { snapshotLander } from './land-snapshot.js';
import { stateLander } from './land-state.js';
import type { Lander } from './lander.js';
import type { LandingContext } from './sql.js';

/** Every lander, in apply order: listing changes first, then prices, then gaps, then the account's rows, then the state they cover. */
export const LANDERS = [
  eventsLander,
  observationsLander,
  goneLander,
  snapshotLander,
  minAskLander,
  fxLander,
  gapsLander,
  ledgerLander,
  accountStatesLander,
  stateLander,
] as const;

/** The value type a lander lands. */
type LandedValue<L> = L extends Lander<string, infer T> ? T : never;

/** The batch fields the registry declares, each optional, typed by its lander. */
export type LandedFields = {
  [L in (typeof LANDERS)[number] as L['field']]?: LandedValue<L>;
};

/** A lander of the registry with its value type erased, for code that iterates the registry. */
export interface AnyLander {
  readonly field: keyof LandedFields;
  readonly merge: 'append' | 'ordered' | 'once' | 'by-key';
  rows(value: unknown): number;
  land(context: LandingContext, value: unknown): Promise<void>;
}

/** The registry, as {@link AnyLander}s. */
export const ALL_LANDERS: readonly AnyLander[] = LANDERS;
