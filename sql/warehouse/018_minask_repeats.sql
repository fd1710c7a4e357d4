-- A row of a game's minAsk list byte-identical to the last row landed for its item group in that
-- game (market_hash_name, wear, doppler_phase) is not stored again: raw_minask_price_repeats records
-- where it stood in which list and which stored row holds its text, so a list costs what changed
-- in it and every list received can still be rebuilt exactly.
CREATE TABLE raw_minask_price_repeats (
  app_id INTEGER NOT NULL,            -- platform app id of the price list's game
  generated_at TIMESTAMP,             -- the list's generated_at (UTC); null when unreadable
  fetched_at TIMESTAMP NOT NULL,      -- when the collector read the list (UTC)
  position INTEGER NOT NULL,          -- the row's place in the list, pages in order
  same_fetched_at TIMESTAMP NOT NULL, -- the raw_minask_prices row of the same game holding the same
  same_position INTEGER NOT NULL,     --   text: (app_id, same_fetched_at, same_position)
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

-- The last row landed for each game's item group: its md5 and the row holding it.
CREATE TABLE minask_group_marks (
  app_id INTEGER NOT NULL,
  group_key VARCHAR NOT NULL,         -- [market_hash_name, wear, doppler_phase] as JSON text
  data_md5 UHUGEINT NOT NULL,         -- md5 of the row (md5_number)
  fetched_at TIMESTAMP NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (app_id, group_key)
);

INSERT INTO minask_group_marks
SELECT app_id, group_key, md5_number(last.data), last.fetched_at, last.position
FROM (
  SELECT app_id, group_key,
         arg_max({'data': data, 'fetched_at': fetched_at, 'position': position}, (fetched_at, position)) AS last
  FROM (
    SELECT *, CASE WHEN json_valid(data) AND json_type(data, '$.market_hash_name') = 'VARCHAR'
                   THEN CAST(json_extract(data, ['$.market_hash_name', '$.wear', '$.doppler_phase']) AS VARCHAR) END AS group_key
    FROM raw_minask_prices
  )
  WHERE group_key IS NOT NULL
  GROUP BY app_id, group_key
);
