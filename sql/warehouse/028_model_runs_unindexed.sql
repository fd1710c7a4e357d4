-- model_runs loses its primary key, and model_state says when each model last began a build and
-- last began one in full. A run's id is a random UUID made once per run, so the key guarded
-- nothing, and its index cost memory that grew with the daemon's life (a run a minute adds 21 rows
-- of random keys); and each incremental build read the whole log to learn whether a model it
-- reads was rebuilt in full since its own last build, which model_state now answers in a row a
-- model. The log keeps every build, in the order they ran.
CREATE TABLE model_runs_unindexed (
  run_id VARCHAR NOT NULL,            -- one id per `models run` (a random UUID); all its models commit together
  model VARCHAR NOT NULL,             -- model name
  materialized VARCHAR NOT NULL CHECK (materialized IN ('view', 'table', 'incremental')),
  mode VARCHAR NOT NULL CHECK (mode IN ('view', 'full', 'incremental')), -- how it was built this time
  rows BIGINT,                        -- rows written (new or replaced rows when incremental); null for views
  started_at TIMESTAMP NOT NULL,      -- when the model's build began (UTC)
  duration_ms DOUBLE NOT NULL         -- how long it took
);

INSERT INTO model_runs_unindexed SELECT * FROM model_runs ORDER BY started_at, run_id, model;
DROP TABLE model_runs;
ALTER TABLE model_runs_unindexed RENAME TO model_runs;

ALTER TABLE model_state ADD COLUMN last_started_at TIMESTAMP; -- model_runs.started_at of its latest build
ALTER TABLE model_state ADD COLUMN full_started_at TIMESTAMP; -- that of its latest build in full; null: none logged
UPDATE model_state s SET last_started_at = r.last_started_at, full_started_at = r.full_started_at
FROM (SELECT model, max(started_at) AS last_started_at, max(started_at) FILTER (WHERE mode = 'full') AS full_started_at
      FROM model_runs GROUP BY model) r
WHERE r.model = s.model;
