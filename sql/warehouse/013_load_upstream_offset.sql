-- Each load keeps the upstream's clock offset measured while it was collected (the upstream's
-- time minus the collector's, in ms; null: not measured), so the models compare an upstream time
-- with a local one on one clock.
ALTER TABLE loads ADD COLUMN upstream_offset_ms BIGINT;
