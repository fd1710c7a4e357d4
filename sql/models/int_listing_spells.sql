-- Each period a listing stood on the market at one ask (a "spell"). A stay runs from a sighting to
-- the first departure after it; a listing that leaves and comes back with the same id (a
-- re-listing) starts a new stay, and a sighting at another ask starts a new spell within the stay
-- (the previous one ends there). Sightings and departures are ordered by when they happened, not
-- by when they landed, so late rows (a catch-up, a restarted collector) fall into the right spell.
-- `after_departure` marks the first spell of a stay that began after the listing had left (a
-- re-listing; also after a departure of a stay the collector never saw). Item fields are those of
-- the spell's last sighting; `updated_at` is when any row of the spell last landed.
-- Grain: one row per listing and spell.
-- materialized: incremental
-- depends_on: stg_listing_appearances, stg_listing_departures
-- unique_key: app_id, listing_id, spell
-- test: unique(app_id, listing_id, spell)
-- test: not_null(app_id, listing_id, spell, stay, after_departure, started_at, last_seen_at, market_hash_name, ask_usd, updated_at)
-- test: expression(ended_at IS NULL OR ended_at >= last_seen_at)
-- test: expression(spell >= stay AND stay >= 1 AND started_at <= last_seen_at AND (stay = 1 OR after_departure))
WITH
{% if is_incremental %}
touched AS (
  SELECT app_id, listing_id FROM stg_listing_appearances WHERE ingested_at >= {{ since }}
  UNION
  SELECT app_id, listing_id FROM stg_listing_departures WHERE ingested_at >= {{ since }}
),
{% endif %}
marks AS (
  SELECT app_id, listing_id, seen_at AS happened_at, log_position, true AS appears, market_hash_name, wear, doppler_phase, float_value,
    paint_seed, stickers, price_usd, category, rarity, listed_at, ingested_at
  FROM stg_listing_appearances
  {% if is_incremental %} SEMI JOIN touched USING (app_id, listing_id) {% endif %}
  UNION ALL
  SELECT app_id, listing_id, left_at, log_position, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ingested_at
  FROM stg_listing_departures
  {% if is_incremental %} SEMI JOIN touched USING (app_id, listing_id) {% endif %}
),
ordered AS (
  -- At the same instant, stream events keep their log order, and a sighting comes before a
  -- departure: it was the last sighting.
  SELECT *,
    lag(appears) OVER w AS after_sighting,
    lag(price_usd) OVER w AS previous_ask
  FROM marks
  WINDOW w AS (PARTITION BY app_id, listing_id ORDER BY happened_at, log_position NULLS FIRST, appears DESC)
),
numbered AS (
  SELECT *,
    CAST(sum(CASE WHEN appears AND NOT coalesce(after_sighting, false) THEN 1 ELSE 0 END) OVER w AS INTEGER) AS stay,
    CAST(sum(CASE WHEN appears AND (NOT coalesce(after_sighting, false) OR price_usd <> previous_ask) THEN 1 ELSE 0 END)
      OVER w AS INTEGER) AS spell
  FROM ordered
  WINDOW w AS (
    PARTITION BY app_id, listing_id ORDER BY happened_at, log_position NULLS FIRST, appears DESC ROWS UNBOUNDED PRECEDING
  )
),
spells AS (
  SELECT app_id, listing_id, spell,
    max(stay) AS stay,
    min(happened_at) FILTER (WHERE appears) AS started_at,
    max(happened_at) FILTER (WHERE appears) AS last_seen_at,
    min(happened_at) FILTER (WHERE NOT appears) AS left_at,
    arg_max(market_hash_name, happened_at) FILTER (WHERE appears) AS market_hash_name,
    arg_max(wear, happened_at) FILTER (WHERE appears) AS wear,
    arg_max(doppler_phase, happened_at) FILTER (WHERE appears) AS doppler_phase,
    arg_max(float_value, happened_at) FILTER (WHERE appears) AS float_value,
    arg_max(paint_seed, happened_at) FILTER (WHERE appears) AS paint_seed,
    arg_max(stickers, happened_at) FILTER (WHERE appears) AS stickers,
    arg_max(category, happened_at) FILTER (WHERE appears) AS category,
    arg_max(rarity, happened_at) FILTER (WHERE appears) AS rarity,
    arg_max(listed_at, happened_at) FILTER (WHERE appears) AS listed_at,
    arg_max(price_usd, happened_at) FILTER (WHERE appears) AS ask_usd,
    max(ingested_at) AS updated_at
  FROM numbered
  GROUP BY app_id, listing_id, spell
),
bounded AS (
  -- A spell ends at its departure, or where the next spell of the same stay (a new ask) begins.
  -- Spell 0 holds departures before any sighting: the end of a stay the collector never saw.
  SELECT *,
    coalesce(left_at, CASE WHEN lead(stay) OVER w = stay THEN lead(started_at) OVER w END) AS ended_at,
    (stay > 1 OR min(spell) OVER (PARTITION BY app_id, listing_id) = 0)
      AND coalesce(lag(stay) OVER w, 0) < stay AS after_departure
  FROM spells
  WINDOW w AS (PARTITION BY app_id, listing_id ORDER BY spell)
)
SELECT app_id, listing_id, spell, stay, after_departure, started_at, last_seen_at, ended_at, market_hash_name, wear,
  doppler_phase, float_value, paint_seed, stickers, category, rarity, listed_at, ask_usd, updated_at
FROM bounded
WHERE spell > 0
