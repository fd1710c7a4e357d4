-- One row per currency of each landed answer of GET /currency: the rate of rates, the answer's
-- base and updated_at, typed leniently; an answer without a rates object is in rejected_payloads.
SELECT r.currency, {{typed_columns(fx, r.j, r.keys)}}, r.fetched_at, r.load_id, r.ingested_at,
       {{extra_keys(fx, r.data, json_keys(r.data))}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, struct_insert(from_json(r.data, '{"base":"JSON","updated_at":"JSON"}'),
           rate := nullif(json_extract(r.data, '$.rates."' || r.currency || '"'), 'null')) AS j,
         list_concat(['rate'], json_keys(r.data)) AS keys
  FROM (
    SELECT r.*, unnest(json_keys(r.data, '$.rates')) AS currency
    FROM raw_fx_rates r
    WHERE ({{rejection(fx, r.data)}}) IS NULL
  ) r
) r
