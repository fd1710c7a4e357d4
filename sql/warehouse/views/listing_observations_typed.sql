-- Every page item a poll, sweep or catch-up landed with an id, typed leniently like the stream's
-- events (typing_notes, extra_fields, raw), with where it stood (page, item; null for an item the
-- typed layout landed, see migration 013). An item byte-identical to its listing's last payload
-- was recorded as a repeat (raw_listing_repeats): it reads the typed row holding that text, with
-- its own envelope. Items without an id are in rejected_payloads. `typed` is inlined where it is
-- read, so a filter on the listing (a model reading a few listings, a build in chunks) reaches the
-- raw table before its text is parsed.
WITH typed AS NOT MATERIALIZED (
  SELECT app_id, observed_at, via, pass_id, page, item, load_id, ingested_at, listing_id,
         {{typed_columns(listing, j, keys)}},
         {{extra_keys(listing, data, keys)}} AS extra_fields, data AS raw
  FROM (
    SELECT r.app_id, r.observed_at, r.via, r.pass_id, r.page, r.item, r.load_id, r.ingested_at,
           r.listing_id, r.data,
           {{json_values(listing, r.data)}} AS j, json_keys(r.data) AS keys
    FROM raw_listing_observations r
    WHERE r.listing_id IS NOT NULL
  )
)
SELECT * FROM typed
UNION ALL BY NAME
SELECT t.* REPLACE (s.app_id AS app_id, s.observed_at AS observed_at, s.via AS via, s.pass_id AS pass_id,
                    s.page AS page, s.item AS item, s.load_id AS load_id, s.ingested_at AS ingested_at)
FROM raw_listing_repeats s
JOIN typed t ON t.listing_id = s.listing_id AND t.via = s.same_via AND t.pass_id = s.same_pass_id
