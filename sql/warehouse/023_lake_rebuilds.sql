-- A full build of a model that moved to the lake (src/warehouse/lake/rebuild.ts) writes every day
-- again into <model>__hot, the lake's days included: until that generation replaces the model's
-- files in the lake, the model's view reads <model>__hot alone and the model is listed here. The
-- row goes in the build's transaction and leaves in the one that deletes the copied days.
CREATE TABLE lake_rebuilds (
  relation VARCHAR NOT NULL,          -- the model rebuilt (one row each: no key, see rebuild.ts)
  run_id VARCHAR NOT NULL             -- the models run that rebuilt it last
);
