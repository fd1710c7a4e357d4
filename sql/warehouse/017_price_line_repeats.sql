-- A line of a downloaded snapshot file byte-identical to the last line landed for its item group
-- (market_hash_name, wear, doppler_phase) is not stored again: raw_price_snapshot_repeats records
-- where it stood in which file and which stored line holds its text, so a file costs what changed
-- in it and every file received can still be rebuilt exactly.
CREATE TABLE raw_price_snapshot_repeats (
  etag VARCHAR NOT NULL,              -- the file's ETag ('' when none was sent)
  generated_at TIMESTAMP,             -- when the service built it (X-Generated-At), null when not sent (UTC)
  fetched_at TIMESTAMP NOT NULL,      -- when the collector downloaded it (UTC)
  line BIGINT NOT NULL,               -- the line's place among the file's readable lines
  same_etag VARCHAR NOT NULL,         -- the raw_price_snapshots row holding the same text:
  same_fetched_at TIMESTAMP NOT NULL, --   (same_etag, same_fetched_at, same_line)
  same_line BIGINT NOT NULL,
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

-- The last line landed for each item group: its md5 and the row holding it.
CREATE TABLE price_group_marks (
  group_key VARCHAR PRIMARY KEY,      -- [market_hash_name, wear, doppler_phase] as JSON text
  data_md5 UHUGEINT NOT NULL,         -- md5 of the line (md5_number)
  etag VARCHAR NOT NULL,
  fetched_at TIMESTAMP NOT NULL,
  line BIGINT NOT NULL
);

INSERT INTO price_group_marks
SELECT group_key, md5_number(last.data), last.etag, last.fetched_at, last.line
FROM (
  SELECT group_key, arg_max({'data': data, 'etag': etag, 'fetched_at': fetched_at, 'line': line}, (fetched_at, line)) AS last
  FROM (
    SELECT *, CASE WHEN json_valid(data) AND json_type(data, '$.market_hash_name') = 'VARCHAR'
                   THEN CAST(json_extract(data, ['$.market_hash_name', '$.wear', '$.doppler_phase']) AS VARCHAR) END AS group_key
    FROM raw_price_snapshots WHERE data IS NOT NULL
  )
  WHERE group_key IS NOT NULL
  GROUP BY group_key
);
