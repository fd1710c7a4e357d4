-- Every landed stream event typed leniently from its data as the stream sent it: a missing key or
-- a value that does not cast is null and noted in typing_notes, keys no column types are in
-- extra_fields, the text in raw. A gone event types only its id; a rejected event is left out
-- (see rejected_payloads).
SELECT event_id, kind, app_id, received_at, load_id, ingested_at, listing_id,
       {{typed_columns(listing, j, keys)}},
       {{extra_keys(listing, data, keys)}} AS extra_fields, data AS raw
FROM (
  SELECT r.event_id, r.kind, r.app_id, r.received_at, r.load_id, r.ingested_at,
         coalesce(r.listing_id, r.data ->> '$.id') AS listing_id, r.data,
         {{json_values(listing, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_listing_events r
  WHERE r.kind = 'new' AND ({{rejection(listing, r.data, r.listing_id, r.kind)}}) IS NULL
)
UNION ALL BY NAME
SELECT r.event_id, r.kind, coalesce(r.listing_id, r.data ->> '$.id') AS listing_id, r.app_id,
       {{null_columns(listing)}},
       CAST([] AS STRUCT(field VARCHAR, reason VARCHAR)[]) AS typing_notes, r.received_at, r.load_id, r.ingested_at,
       {{extra_keys(listing, r.data, json_keys(r.data))}} AS extra_fields, r.data AS raw
FROM raw_listing_events r
WHERE r.kind = 'gone' AND ({{rejection(listing, r.data, r.listing_id, r.kind)}}) IS NULL
