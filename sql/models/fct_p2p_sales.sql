-- Every copy each account (`account_id`, the one its states were collected for) sold through P2P: the listed price, the payout and commission, how
-- long it was listed, and, when the account bought the item through the service (the newest of its
-- completed orders of that market_hash_name placed before the listing), the price it paid and the
-- realized margin (payout minus that price).
-- A listing that ends is no longer answered by the API (its status stays one of the spec's five), so
-- the sale is the account's `sale` ledger row whose order_id is the listing id (sold_at: when it
-- posted) and the listing is its last landed state (mid-sale, with the price it sold at).
-- Grain: one row per sold P2P listing.
-- materialized: table
-- depends_on: fct_order_outcomes
-- export: CAST(sold_at AS DATE)
-- test: unique(listing_id)
-- test: not_null(listing_id, market_hash_name, listed_price_usd, payout_usd, listed_at, sold_at)
-- test: expression(payout_usd = listed_price_usd - commission_usd)
-- test: expression(days_listed >= 0)
WITH listed AS (
  SELECT a.object_id AS listing_id, any_value(l.account_id) AS account_id,
    arg_max(a.body, a.updated_at) AS body
  FROM account_states a
  LEFT JOIN loads l USING (load_id)
  WHERE a.kind = 'p2p_listing'
  GROUP BY a.object_id
),
sold AS (
  SELECT s.listing_id, s.account_id, any_value(s.body) AS body, min(t.created_at) AS sold_at
  FROM listed s
  JOIN account_transactions t ON t.type = 'sale' AND t.order_id = s.listing_id
  LEFT JOIN loads m ON m.load_id = t.load_id
  WHERE m.account_id IS NOT DISTINCT FROM s.account_id
  GROUP BY s.listing_id, s.account_id
),
shaped AS (
  SELECT listing_id, account_id, sold_at,
    json_extract_string(body, '$.market_hash_name') AS market_hash_name,
    json_extract_string(body, '$.asset_id') AS asset_id,
    CAST(CAST(json_extract(body, '$.price_usd') AS DOUBLE) AS DECIMAL(18, 2)) AS listed_price_usd,
    CAST(CAST(json_extract(body, '$.commission_usd') AS DOUBLE) AS DECIMAL(18, 2)) AS commission_usd,
    CAST(CAST(json_extract(body, '$.seller_payout_usd') AS DOUBLE) AS DECIMAL(18, 2)) AS payout_usd,
    CAST(CAST(json_extract_string(body, '$.created_at') AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS TIMESTAMP) AS listed_at
  FROM sold
)
SELECT s.listing_id, s.account_id, s.market_hash_name, s.asset_id, s.listed_price_usd, s.commission_usd, s.payout_usd,
  s.listed_at, s.sold_at,
  round(date_diff('second', s.listed_at, s.sold_at) / 86400.0, 2) AS days_listed,
  b.first_item_price_usd AS bought_price_usd,
  CAST(s.payout_usd - b.first_item_price_usd AS DECIMAL(18, 2)) AS realized_margin_usd
FROM shaped s
LEFT JOIN LATERAL (
  SELECT arg_max(o.first_item_price_usd, o.ordered_at) AS first_item_price_usd
  FROM fct_order_outcomes o
  WHERE o.account_id IS NOT DISTINCT FROM s.account_id AND o.market_hash_name = s.market_hash_name
    AND o.status = 'completed' AND o.ordered_at <= s.listed_at
) b ON true
