-- What polls, sweeps and catch-ups saw, with the columns and meaning of the former table.
SELECT app_id, listing_id, {{columns(listing)}}, observed_at, via, pass_id, load_id, ingested_at
FROM listing_observations_typed
