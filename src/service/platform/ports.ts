/**
 * What the platform's sandbox controls need from the rest of the service: which platform account an
 * account links, and what an item named in a grant is. The composition root passes the real parts.
 */
import type { GrantedItem } from './inventory-store.js';

/** Accounts as the platform's sandbox controls see them. */
export interface PlatformAccounts {
  /** The linked platform id of an account: null when none is linked, undefined when there is no such account. */
  steamIdOf(accountId: string): string | null | undefined;
}

/** Descriptions of the items the catalogue knows, by exact market_hash_name. */
export interface ItemDescriptions {
  /** The item's description, or undefined when the catalogue does not know an item of that name. */
  describe(marketHashName: string): Promise<GrantedItem | undefined>;
}
