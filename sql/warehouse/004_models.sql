-- Bookkeeping of the SQL models (sql/models): how far each incremental model has read the landing
-- tables (committed in the same transaction as the model's rows), and a log of every build.
CREATE TABLE model_state (
  model VARCHAR PRIMARY KEY,          -- model name (its file name without .sql)
  sql_hash VARCHAR NOT NULL,          -- hash of the SQL it was built with; a change forces a full rebuild
  watermark TIMESTAMP NOT NULL,       -- newest loads.started_at the model had read when it was last built (UTC)
  built_at TIMESTAMP NOT NULL         -- when it was last built (UTC)
);

CREATE TABLE model_runs (
  run_id VARCHAR NOT NULL,            -- one id per `models run`; all its models commit together
  model VARCHAR NOT NULL,             -- model name
  materialized VARCHAR NOT NULL CHECK (materialized IN ('view', 'table', 'incremental')),
  mode VARCHAR NOT NULL CHECK (mode IN ('view', 'full', 'incremental')), -- how it was built this time
  rows BIGINT,                        -- rows written (new or replaced rows when incremental); null for views
  started_at TIMESTAMP NOT NULL,      -- when the model's build began (UTC)
  duration_ms DOUBLE NOT NULL,        -- how long it took
  PRIMARY KEY (run_id, model)
);
