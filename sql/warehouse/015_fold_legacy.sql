-- One layout: the typed tables the former layout left as legacy_* sources (migrations 009, 010 and
-- 012) are folded into their raw twins, each typed row written back as the JSON text its typing
-- reads (the same values, timestamps as ISO 8601 UTC with microseconds), so every landing, view
-- and model reads the raw tables alone. The frozen copy of the former live set is dropped: the
-- live set is derived from the events and observations, which stay.

-- A loads' rows the live set has not applied yet are found by (load_id, ingested_at): the former
-- layout's rows may carry another ingested_at than their load's start, so each is made pending too.
INSERT INTO live_set_pending
SELECT DISTINCT l.load_id, l.ingested_at
FROM (
  SELECT load_id, ingested_at FROM legacy_listing_events
  UNION ALL SELECT load_id, ingested_at FROM legacy_listing_observations
) l
WHERE l.load_id IN (SELECT load_id FROM live_set_pending)
  AND (l.load_id, l.ingested_at) NOT IN (SELECT (load_id, ingested_at) FROM live_set_pending);

-- A page item of the former layout kept no place on its page.
ALTER TABLE raw_listing_observations ALTER COLUMN page DROP NOT NULL;
ALTER TABLE raw_listing_observations ALTER COLUMN item DROP NOT NULL;

CREATE TEMP MACRO _iso(t) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%fZ');

-- The listing's JSON as the typed row holds it (the columns of the former layout, which the
-- contract's schema gave then).
CREATE TEMP MACRO _listing_json(id, market_hash_name, wear, doppler_phase, float_value, paint_seed, stickers,
    price_usd, category, rarity, image, inspect_link, tradable, tradable_at, delivery, refund_percent, listed_at) AS
  CAST(json_object('id', id, 'market_hash_name', market_hash_name, 'wear', wear, 'doppler_phase', doppler_phase,
    'float_value', float_value, 'paint_seed', paint_seed, 'stickers', stickers, 'price_usd', price_usd,
    'category', category, 'rarity', rarity, 'image', image, 'inspect_link', inspect_link, 'tradable', tradable,
    'tradable_at', _iso(tradable_at), 'delivery', delivery, 'refund_percent', refund_percent,
    'listed_at', _iso(listed_at)) AS VARCHAR);

INSERT INTO raw_listing_events
SELECT event_id, kind, app_id, listing_id,
       CASE WHEN kind = 'gone' THEN CAST(json_object('id', listing_id) AS VARCHAR)
            ELSE _listing_json(listing_id, market_hash_name, wear, doppler_phase, float_value, paint_seed, stickers,
              price_usd, category, rarity, image, inspect_link, tradable, tradable_at, delivery, refund_percent, listed_at)
       END,
       received_at, load_id, ingested_at
FROM legacy_listing_events;

INSERT INTO raw_listing_observations
SELECT via, pass_id, NULL, NULL, listing_id, app_id,
       _listing_json(listing_id, market_hash_name, wear, doppler_phase, float_value, paint_seed, stickers,
         price_usd, category, rarity, image, inspect_link, tradable, tradable_at, delivery, refund_percent, listed_at),
       observed_at, load_id, ingested_at
FROM legacy_listing_observations;

CREATE TEMP MACRO _price_json(market_hash_name, wear, doppler_phase, min_ask_usd, listed_count) AS
  CAST(json_object('market_hash_name', market_hash_name, 'wear', wear, 'doppler_phase', doppler_phase,
    'min_ask_usd', min_ask_usd, 'listed_count', listed_count) AS VARCHAR);

INSERT INTO raw_price_snapshots
SELECT etag, generated_at, fetched_at,
       row_number() OVER (PARTITION BY etag, fetched_at ORDER BY rowid),
       _price_json(market_hash_name, wear, doppler_phase, min_ask_usd, listed_count), load_id, ingested_at
FROM legacy_price_snapshots;

INSERT INTO raw_minask_prices
SELECT app_id, generated_at, fetched_at,
       CAST(row_number() OVER (PARTITION BY app_id, generated_at ORDER BY rowid) - 1 AS INTEGER),
       _price_json(market_hash_name, wear, doppler_phase, min_ask_usd, listed_count), load_id, ingested_at
FROM legacy_minask_prices;

-- One answer of GET /currency per update as it was fetched: its rates gathered back into one object.
INSERT INTO raw_fx_rates
SELECT updated_at, fetched_at,
       CAST(json_object('base', base, 'rates', json_group_object(currency, rate), 'updated_at', _iso(updated_at)) AS VARCHAR),
       load_id, ingested_at
FROM legacy_fx_rates
GROUP BY updated_at, fetched_at, base, load_id, ingested_at;

INSERT INTO raw_account_transactions
SELECT transaction_id, observed_at,
       CAST(json_object('id', transaction_id, 'type', "type", 'amount_usd', amount_usd,
         'balance_after_usd', balance_after_usd, 'order_id', order_id, 'description', description,
         'created_at', _iso(created_at)) AS VARCHAR),
       load_id, ingested_at
FROM legacy_account_transactions;

-- An object's state kept its whole body: that is the text the API answered.
INSERT INTO raw_account_states
SELECT kind, object_id, app_id, updated_at, observed_at, CAST(body AS VARCHAR), load_id, ingested_at
FROM legacy_account_states;

DROP MACRO _listing_json;
DROP MACRO _price_json;
DROP MACRO _iso;

DROP TABLE legacy_listing_events;
DROP TABLE legacy_listing_observations;
DROP TABLE legacy_live_listings;
DROP TABLE legacy_price_snapshots;
DROP TABLE legacy_minask_prices;
DROP TABLE legacy_fx_rates;
DROP TABLE legacy_account_transactions;
DROP TABLE legacy_account_states;
