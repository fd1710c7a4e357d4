-- How far back the live set's state still holds departed listings. A row that says only that a
-- listing left (no sighting since) is dropped once its departure is older than pruned_before, so the
-- state holds the live listings and the recent departures, not every listing ever seen; a landed
-- sighting or departure at or before pruned_before has its listing's departures looked up in the
-- history instead (src/warehouse/live-set/live-set.ts). Null until the first apply sets it.
CREATE TABLE live_set_horizon (
  pruned_before TIMESTAMP             -- rises with the newest happening applied, less the horizon kept
);
INSERT INTO live_set_horizon VALUES (NULL);
