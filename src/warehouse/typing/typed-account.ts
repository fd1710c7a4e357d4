/**
 * The typing of the landed account, in SQL: ledger rows as the columns of the former
 * `account_transactions`, and the states of orders, P2P listings and sell orders as those of
 * `account_states` (the object kept whole in `body`), with typing notes and extra keys.
 */
import { transactionSchema } from '../../contract/account.js';
import { orderSchema } from '../../contract/order.js';
import { p2pListingSchema } from '../../contract/p2p.js';
import { sellOrderSchema } from '../../contract/sell.js';
import { fieldsOf, type ListingField } from './listing-shape.js';
import { type PayloadTyping, rejectedPayloadsSql, typedPayloadsSql } from './typed-payloads.js';

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

/** Columns of account_transactions, in table order. */
const TRANSACTION_COLUMNS = `transaction_id, ${TRANSACTION.fields.map((f) => f.name).join(', ')}, observed_at, load_id, ingested_at`;

/** Every ledger row typed: the landed rows typed leniently. */
export const ACCOUNT_TRANSACTIONS_TYPED = `
  ${typedPayloadsSql(TRANSACTION, 'raw_account_transactions', 'r.transaction_id, r.observed_at, r.load_id, r.ingested_at')}`;

export const ACCOUNT_TRANSACTIONS = `SELECT ${TRANSACTION_COLUMNS} FROM account_transactions_typed`;

/** The fields every account object's state is typed by; the rest of it is read from `body`. */
const STATE_FIELDS: readonly ListingField[] = [
  { name: 'status', sqlType: 'VARCHAR', kind: 'string', nullable: false },
  { name: 'updated_at', sqlType: 'TIMESTAMP', kind: 'timestamp', nullable: false },
];

/** An object state without an id (the collector reads it as the feed names it) is rejected. */
function stateTyping(kind: keyof typeof OBJECT_KEYS): PayloadTyping {
  return { fields: STATE_FIELDS, known: OBJECT_KEYS[kind], id: 'r.object_id', idName: 'object id' };
}

/** Columns of account_states, in table order. */
const STATE_COLUMNS = 'kind, object_id, app_id, status, updated_at, observed_at, body, load_id, ingested_at';

/** Every state of the account's objects typed: the landed ones, each kind by its keys. */
export const ACCOUNT_STATES_TYPED = `
  ${(Object.keys(OBJECT_KEYS) as (keyof typeof OBJECT_KEYS)[])
    .map(
      (kind) =>
        `${typedPayloadsSql(
          stateTyping(kind),
          `(SELECT * FROM raw_account_states WHERE kind = '${kind}')`,
          'r.kind, r.object_id, r.app_id, r.observed_at, CAST(r.data AS JSON) AS body, r.load_id, r.ingested_at',
        )}`,
    )
    .join('\nUNION ALL BY NAME\n')}`;

export const ACCOUNT_STATES = `SELECT ${STATE_COLUMNS} FROM account_states_typed`;

/** The landed account rows that cannot be typed at all, with rejected_payloads' columns. */
export const REJECTED_ACCOUNT = `
  ${rejectedPayloadsSql(TRANSACTION, 'raw_account_transactions', "'account' AS source, r.transaction_id AS event_id, 'transaction' AS kind, r.data AS raw, r.observed_at AS received_at, r.load_id, r.ingested_at")}
  UNION ALL BY NAME
  ${rejectedPayloadsSql(stateTyping('order'), 'raw_account_states', "'account' AS source, r.object_id AS event_id, r.kind, r.data AS raw, r.observed_at AS received_at, r.load_id, r.ingested_at")}`;
