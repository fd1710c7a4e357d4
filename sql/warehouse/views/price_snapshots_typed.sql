-- Every line of a downloaded CS2 snapshot file typed leniently as a PriceRow; a line without a
-- market_hash_name names no group and is in rejected_payloads. A line byte-identical to its
-- group's last line was recorded as a repeat (raw_price_snapshot_repeats): it reads the typed row
-- of the line holding that text, with its own file's envelope.
WITH typed AS (
  SELECT r.etag, r.generated_at, r.fetched_at, r.line, r.load_id, r.ingested_at,
         {{typed_columns(price_row, r.j, r.keys)}},
         {{extra_keys(price_row, r.data, r.keys)}} AS extra_fields, r.data AS raw
  FROM (
    SELECT r.*, {{json_values(price_row, r.data)}} AS j, json_keys(r.data) AS keys
    FROM raw_price_snapshots r
    WHERE ({{rejection(price_row, r.data)}}) IS NULL
  ) r
)
SELECT * EXCLUDE (line) FROM typed
UNION ALL BY NAME
SELECT t.* EXCLUDE (line) REPLACE (s.etag AS etag, s.generated_at AS generated_at, s.fetched_at AS fetched_at,
                                   s.load_id AS load_id, s.ingested_at AS ingested_at)
FROM raw_price_snapshot_repeats s
JOIN typed t ON t.etag = s.same_etag AND t.fetched_at = s.same_fetched_at AND t.line = s.same_line
