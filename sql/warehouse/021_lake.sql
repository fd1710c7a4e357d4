-- The lake (src/warehouse/lake/): whole days moved out of this file into Hive-partitioned parquet
-- files in a folder beside it, listed by the folder's manifest.json (the truth); these tables are
-- this file's copy of the manifest as of the last move it completed. Every relation that moves is
-- read whole through a view: history.<raw table> for the landing tables, the model's own name
-- for an incremental model (its rows built in <model>__hot once it moved).
CREATE SCHEMA IF NOT EXISTS history;

-- Per relation, the instant before which its rows live in the lake's files, not in this file.
CREATE TABLE lake_bounds (
  relation VARCHAR NOT NULL,          -- a landing table or an incremental model
  lake_before TIMESTAMP NOT NULL,     -- its rows with a time before it are read from the lake (UTC)
  move_id VARCHAR NOT NULL            -- the move that set it
);

-- The lake's files as the manifest listed them after the last move this file completed.
CREATE TABLE lake_files (
  relation VARCHAR NOT NULL,          -- the relation the file holds rows of
  path VARCHAR NOT NULL,              -- <relation>/date=YYYY-MM-DD/part-<n>.parquet, relative to the lake
  file VARCHAR NOT NULL,              -- the same, absolute (the lake folder this file was opened with)
  day DATE NOT NULL,                  -- the partition: UTC day of the rows' time
  rows BIGINT NOT NULL,               -- rows the file holds
  bytes BIGINT NOT NULL               -- its size
);

-- The moves this file completed, in order; the last one is the manifest's last when both agree.
CREATE TABLE lake_moves (
  move_id VARCHAR NOT NULL,           -- the manifest's move id
  lake_before TIMESTAMP NOT NULL,     -- every row landed before it moved (UTC)
  moved_at TIMESTAMP NOT NULL,        -- when the move was written (UTC)
  lake_dir VARCHAR NOT NULL           -- the lake folder it wrote (absolute): where the next open looks
);
