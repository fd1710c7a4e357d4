-- Stream events are deduplicated by the watermark of their event log instead of a primary key on
-- event_id: DuckDB's index on a growing log made every insert, and every checkpoint, cost more.
-- Event ids are opaque, but this service's are a log followed by a position (`abcdefgh-123`) that
-- rises as the stream reads on: an id above its log's watermark (the highest position landed,
-- committed with the events) is new; one at or below it is looked up in listing_events.
-- listing_events is rebuilt with the same columns and rows, without the key.
CREATE TABLE listing_events_unindexed (
  event_id VARCHAR NOT NULL,          -- SSE event id (opaque); a replayed event is not landed twice (see event_watermarks)
  kind VARCHAR NOT NULL CHECK (kind IN ('new', 'gone')), -- new: the listing appeared; gone: it left
  listing_id VARCHAR NOT NULL,        -- listing id; belongs to its game
  app_id INTEGER NOT NULL,            -- platform app id of the listing's game (730 CS2)
  market_hash_name VARCHAR,           -- item name; null for gone events (as are all listing fields below)
  wear VARCHAR,                       -- CS2 wear name, null for other games
  doppler_phase VARCHAR,              -- Doppler phase, null when not a Doppler
  float_value DOUBLE,                 -- CS2 float, null for other games
  paint_seed INTEGER,                 -- CS2 paint seed, null for other games
  stickers STRUCT(name VARCHAR, image VARCHAR, slot INTEGER, wear DOUBLE)[], -- applied stickers
  price_usd DECIMAL(18, 2),           -- asking price in USD
  category VARCHAR,                   -- item category, e.g. Rifle
  rarity VARCHAR,                     -- item rarity, e.g. Covert
  image VARCHAR,                      -- image URL
  inspect_link VARCHAR,               -- inspect link, when the game has one
  tradable BOOLEAN,                   -- false while a platform trade lock holds
  tradable_at TIMESTAMP,              -- when the trade lock ends (UTC)
  delivery VARCHAR,                   -- instant | up_to_12h | hold
  refund_percent DOUBLE,              -- share refundable on a reversal, 0-100; null when unpublished
  listed_at TIMESTAMP,                -- when the item entered the catalogue (UTC)
  received_at TIMESTAMP NOT NULL,     -- when the collector received the event (UTC)
  load_id VARCHAR NOT NULL,           -- batch that landed the row (loads.load_id)
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

INSERT INTO listing_events_unindexed SELECT * FROM listing_events;
DROP TABLE listing_events;
ALTER TABLE listing_events_unindexed RENAME TO listing_events;

CREATE TABLE event_watermarks (
  log VARCHAR PRIMARY KEY,            -- an event id without its trailing digits, e.g. abcdefgh- (the whole id when it has none)
  position BIGINT NOT NULL,           -- the highest position of the log landed in listing_events (0 for an id without digits)
  load_id VARCHAR NOT NULL,           -- batch that last raised it
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

INSERT INTO event_watermarks
SELECT log, max(position), arg_max(load_id, position), arg_max(ingested_at, position)
FROM (
  SELECT log, coalesce(try_cast(nullif(event_id[length(log) + 1:], '') AS BIGINT), 0) AS position, load_id, ingested_at
  FROM (SELECT *, rtrim(event_id, '0123456789') AS log FROM listing_events)
)
GROUP BY log;
