/**
 * How the landed account is typed: ledger rows field by field as Transactions, and the states of
 * orders, P2P listings and sell orders by their status and updated_at (the object kept whole in
 * `body`). The views that apply these are `sql/warehouse/views/account_*_typed.sql`.
 */
import { transactionSchema } from '../../contract/account.js';
import { orderSchema } from '../../contract/order.js';
import { p2pListingSchema } from '../../contract/p2p.js';
import { sellOrderSchema } from '../../contract/sell.js';
import { fieldsOf, type ListingField } from './listing-shape.js';
import type { PayloadTyping } from './typed-payloads.js';

/** The keys of each kind of account object the contract names. */
const OBJECT_KEYS = {
  order: Object.keys(orderSchema.shape),
  p2p_listing: Object.keys(p2pListingSchema.shape),
  sell_order: Object.keys(sellOrderSchema.shape),
};

/** Every key the account source's payloads may carry: a key outside these is a new field. */
export const ACCOUNT_KEYS: readonly string[] = [
  ...new Set([...Object.keys(transactionSchema.shape), ...Object.values(OBJECT_KEYS).flat()]),
];

/** A ledger row is typed field by field; without a string id it cannot be told apart and is rejected. */
const TRANSACTION: PayloadTyping = {
  fields: fieldsOf(transactionSchema, ['id']),
  known: Object.keys(transactionSchema.shape),
  id: 'r.transaction_id',
  idName: 'transaction id',
};

/** The fields every account object's state is typed by; the rest of it is read from `body`. */
const STATE_FIELDS: readonly ListingField[] = [
  { name: 'status', sqlType: 'VARCHAR', kind: 'string', nullable: false },
  { name: 'updated_at', sqlType: 'TIMESTAMP', kind: 'timestamp', nullable: false },
];

/** An object state without an id (the collector reads it as the feed names it) is rejected. */
function stateTyping(kind: keyof typeof OBJECT_KEYS): PayloadTyping {
  return { fields: STATE_FIELDS, known: OBJECT_KEYS[kind], id: 'r.object_id', idName: 'object id' };
}

/** The account's typings, by the name the view files use: `transaction` and each object kind. */
export const ACCOUNT_TYPINGS: Record<string, PayloadTyping> = {
  transaction: TRANSACTION,
  order: stateTyping('order'),
  p2p_listing: stateTyping('p2p_listing'),
  sell_order: stateTyping('sell_order'),
};
