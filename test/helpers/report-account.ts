/**
 * An account's trading landed the way the account source lands it (`GET /transactions` rows and
 * order states, through `Warehouse.write`): an opening deposit, orders spread over a span with
 * every kind of outcome, their purchases and refunds, a sale and a fee, and a withdrawal a day on.
 */
import type { Transaction } from '../../src/contract/account.js';
import type { Order, OrderStatus, ReturnReason } from '../../src/contract/order.js';
import type { Warehouse } from '../../src/warehouse/index.js';

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The outcomes orders cycle through: a status, and why its item came back when it did. */
const OUTCOMES: readonly { status: OrderStatus; reason: ReturnReason | null }[] = [
  { status: 'completed', reason: null },
  { status: 'delivering', reason: null },
  { status: 'completed', reason: null },
  { status: 'hold', reason: null },
  { status: 'cancelled', reason: 'declined' },
  { status: 'pending', reason: null },
  { status: 'failed', reason: 'trade_timeout' },
  { status: 'completed', reason: null },
  { status: 'cancelled', reason: 'expired' },
  { status: 'failed', reason: null },
];

/** What {@link landAccountHistory} landed. */
export interface AccountHistory {
  /** Every outcome of the orders, as the report names them (`returned: <reason>` for returned ones). */
  outcomes: string[];
}

/** Lands `orders` orders placed evenly over [fromMs, toMs) and the ledger rows they moved. */
export async function landAccountHistory(
  warehouse: Warehouse,
  span: { fromMs: number; toMs: number; orders: number },
): Promise<AccountHistory> {
  const { fromMs, toMs } = span;
  const step = (toMs - fromMs) / (span.orders + 1);
  const moves: Omit<Transaction, 'id' | 'balance_after_usd'>[] = [
    move('deposit', 500, null, fromMs, 'opening deposit'),
  ];
  const orders: Order[] = [];
  for (let i = 0; i < span.orders; i++) {
    const at = Math.round(fromMs + (i + 1) * step);
    const outcome = OUTCOMES[i % OUTCOMES.length] ?? { status: 'completed', reason: null };
    const order = orderOf(`ord_${i + 1}`, at, 2 + ((i * 7) % 23) + 0.5, outcome);
    orders.push(order);
    moves.push(move('purchase', -order.charged_total_usd, order.order_id, at, 'purchase'));
    if (order.refund)
      moves.push(move('refund', order.refund.amount_usd, order.order_id, at + 30_000, 'refund'));
  }
  moves.push(move('sale', 12.4, null, fromMs + (toMs - fromMs) / 2, 'instant sell'));
  moves.push(move('fee', -0.62, null, fromMs + (toMs - fromMs) / 2 + 1000, 'instant sell fee'));
  if (toMs - fromMs > DAY_MS) moves.push(move('withdrawal', -150, null, fromMs + DAY_MS, 'withdrawal'));
  moves.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  let balance = 0;
  const ledger = moves.map((m, i) => {
    balance = Math.round((balance + m.amount_usd) * 100) / 100;
    const transaction: Transaction = { ...m, id: `txn_${i + 1}`, balance_after_usd: balance };
    return { id: transaction.id, transaction, observedAt: toMs };
  });
  const accountStates = orders.map((order) => ({
    kind: 'order' as const,
    id: order.order_id,
    appId: order.app_id,
    updatedAt: order.updated_at,
    observedAt: Date.parse(order.updated_at),
    body: order,
  }));
  await warehouse.write([{ source: 'account', ledger, accountStates }]);
  const outcomes = orders.map((o) =>
    o.items[0]?.return_reason ? `returned: ${o.items[0].return_reason}` : o.status,
  );
  return { outcomes: [...new Set(outcomes)] };
}

function move(
  type: Transaction['type'],
  amount: number,
  orderId: string | null,
  at: number,
  description: string,
): Omit<Transaction, 'id' | 'balance_after_usd'> {
  return { type, amount_usd: amount, order_id: orderId, description, created_at: iso(Math.round(at)) };
}

/** An order of one CS2 item at `at`, in the state of `outcome` half a minute later. */
function orderOf(
  id: string,
  at: number,
  price: number,
  outcome: { status: OrderStatus; reason: ReturnReason | null },
): Order {
  const held = outcome.status === 'hold';
  const item = {
    listing_id: `c${id}`,
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    price_usd: price,
    status: outcome.reason
      ? ('returned' as const)
      : outcome.status === 'completed'
        ? ('delivered' as const)
        : held
          ? ('hold' as const)
          : ('delivering' as const),
    tradable_at: held ? iso(at + 7 * DAY_MS) : null,
    return_reason: outcome.reason,
    steam_trade_offer_id: outcome.status === 'pending' ? null : `offer_${id}`,
    steam_trade_offer_finished_at: outcome.status === 'completed' ? iso(at + 30_000) : null,
  };
  return {
    order_id: id,
    app_id: 730,
    steam_id: '76561198000000001',
    status: outcome.status,
    custom_id: null,
    currency: 'USD',
    charged_total_usd: price,
    item_count: 1,
    delivery: held ? 'hold' : 'instant',
    expected_minutes: held ? null : 1,
    hold_until: held ? iso(at + 7 * DAY_MS) : null,
    claimable: false,
    refund: outcome.reason ? { amount_usd: price, refunded_at: iso(at + 30_000), partial: false } : null,
    created_at: iso(at),
    updated_at: iso(at + 30_000),
    items: [item],
  };
}
