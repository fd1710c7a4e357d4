-- Model tests that compare a model with data that moves on after a build (a landing table, a
-- view): they run inside the build's transaction, so they compare the model with the data it was
-- built from, never with rows that landed later. `market models test` reports these outcomes.
CREATE TABLE model_build_tests (
  model VARCHAR NOT NULL,             -- model name; its rows are replaced by each build of the model
  test VARCHAR NOT NULL,              -- the test as the model writes it, e.g. row_count(= SELECT …)
  run_id VARCHAR NOT NULL,            -- the build it ran with (model_runs.run_id)
  watermark TIMESTAMP NOT NULL,       -- newest loads.started_at that build read (UTC)
  failures BIGINT NOT NULL,           -- offending rows; 0 passes
  sample VARCHAR NOT NULL,            -- JSON array of up to 5 offending rows
  error VARCHAR                       -- why the test's query could not run (also a failure), else null
);
