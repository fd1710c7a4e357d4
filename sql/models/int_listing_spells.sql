-- Each period a listing stood on the market at one ask (a "spell"). A stay runs from a sighting to
-- the first departure after it; a listing that leaves and comes back with the same id (a
-- re-listing) starts a new stay, and a sighting at another ask starts a new spell within the stay
-- (the previous one ends there). Sightings and departures are ordered by when they happened, not
-- by when they landed, so late rows (a catch-up, a restarted collector) fall into the right spell.
-- `after_departure` marks the first spell of a stay that began after the listing had left (a
-- re-listing; also after a departure of a stay the collector never saw). Item fields and the ask
-- are those of the spell's last sighting (`last_sighting_id`); `updated_at` is when any row of the
-- spell last landed.
-- A full build runs in ranges of listing ids of about 500,000 sightings each, as many as the
-- history holds, so that the windows below sort a bounded part of it at a time (and a range reaches
-- the stored payloads the repeats are joined to); they number narrow rows, and the item fields are
-- joined back once per spell from its last sighting.
-- Grain: one row per listing and spell.
-- materialized: incremental
-- depends_on: stg_listing_appearances, stg_listing_departures
-- unique_key: app_id, listing_id, spell
-- chunks: per 500000 rows of stg_listing_appearances.listing_id
-- test: unique(app_id, listing_id, spell)
-- test: not_null(app_id, listing_id, spell, stay, after_departure, started_at, last_seen_at, updated_at, last_sighting_id)
-- test: expression(ended_at IS NULL OR ended_at >= last_seen_at)
-- test: expression(spell >= stay AND stay >= 1 AND started_at <= last_seen_at AND (NOT after_departure OR stay > 1 OR spell = 1))
{% if is_incremental %}
-- An increment first sets its touched listings aside, and the ids of those it replays as a
-- constant list (`spells_replayed_ids`): a constant reaches the scan of the page items' repeats, so
-- DuckDB builds the repeats' join on the few repeats of those listings (none, most minutes) instead
-- of on every stored page item with its text, which it hashed before finding nothing to probe.
CREATE OR REPLACE TEMP TABLE spells_landed AS
  -- The rows landed since the last build (their raw rows found by ingested_at), read once: the
  -- sightings with the fields a spell keeps, and the departures (`tie` their via).
  SELECT app_id, listing_id, seen_at AS happened_at, log_position, true AS appears, sighting_id AS tie, price_usd,
    ingested_at, market_hash_name, wear, doppler_phase, category, rarity
  FROM stg_listing_appearances WHERE ingested_at >= {{ since }}
  UNION ALL
  SELECT app_id, listing_id, left_at, log_position, false, via, NULL, ingested_at, NULL, NULL, NULL, NULL, NULL
  FROM stg_listing_departures WHERE ingested_at >= {{ since }};
CREATE OR REPLACE TEMP TABLE spells_touched AS
  -- Each touched listing, how its spells are built (`kind`), and its last built spell (none for a
  -- listing never seen before):
  -- - `carried`: its last spell is still open (no departure, no spell after it) and every row
  --   landed since happened after that spell's last sighting, or is that sighting read again (the
  --   build before read up to the same load): its spells go on from that one, which stands in for
  --   its history, so only the rows landed since are read (a listing live for weeks is seen by
  --   every sweep). The rows before its last sighting are numbered already and none landed among
  --   them.
  -- - `fresh`: no spell: every sighting of its landed since (any earlier one made a spell), so only
  --   those are read, with its departures.
  -- - `replayed`: any other (a row landed late, a departure, a re-listing): numbered again from its
  --   whole history.
  WITH last_spells AS (
    SELECT * FROM {{ this }}
    SEMI JOIN spells_landed USING (app_id, listing_id)
    WHERE listing_id IN (SELECT unnest(list(DISTINCT listing_id)) FROM spells_landed)
    QUALIFY spell = max(spell) OVER (PARTITION BY app_id, listing_id)
  ),
  kinds AS (
    SELECT n.app_id, n.listing_id,
      CASE WHEN any_value(l.listing_id) IS NULL THEN 'fresh'
        WHEN any_value(l.ended_at) IS NULL
          AND bool_and(n.happened_at > l.last_seen_at OR (n.appears AND n.tie = l.last_sighting_id)) THEN 'carried'
        ELSE 'replayed' END AS kind
    FROM spells_landed n
    LEFT JOIN last_spells l ON l.app_id = n.app_id AND l.listing_id = n.listing_id
    GROUP BY n.app_id, n.listing_id
  )
  SELECT k.kind, k.app_id, k.listing_id, l.spell, l.stay, l.after_departure, l.started_at, l.last_seen_at,
    l.market_hash_name, l.wear, l.doppler_phase, l.category, l.rarity, l.ask_usd, l.updated_at, l.last_sighting_id
  FROM kinds k
  LEFT JOIN last_spells l ON l.app_id = k.app_id AND l.listing_id = k.listing_id;
SET VARIABLE spells_replayed_ids = (
  SELECT coalesce(list(DISTINCT listing_id), []) FROM spells_touched WHERE kind = 'replayed'
);
{% endif %}
WITH
{% if is_incremental %}
carried AS (SELECT * EXCLUDE (kind) FROM spells_touched WHERE kind = 'carried'),
fresh AS (SELECT app_id, listing_id FROM spells_touched WHERE kind = 'fresh'),
replayed AS (SELECT app_id, listing_id FROM spells_touched WHERE kind = 'replayed'),
{% endif %}
sightings AS MATERIALIZED (
  -- The sightings of this build: a replayed listing's every one (its ids as one list, so DuckDB
  -- filters the raw rows by them before it types the text), a carried or fresh one's landed since
  -- (a carried one's last sighting read again left out: its spell stands for it), or every one of
  -- the range (read once, for the numbering and the join below). Only the fields a spell keeps are
  -- typed and held (a sticker list is typed from JSON, and is the widest).
  {% if is_incremental %}
  SELECT app_id, listing_id, seen_at, log_position, sighting_id, price_usd, ingested_at, market_hash_name, wear, doppler_phase,
    category, rarity
  FROM stg_listing_appearances
  SEMI JOIN replayed USING (app_id, listing_id)
  -- The list is a constant: empty, the condition folds to false and DuckDB reads nothing here.
  WHERE list_contains(getvariable('spells_replayed_ids'), listing_id) AND len(getvariable('spells_replayed_ids')) > 0
  UNION ALL
  SELECT a.app_id, a.listing_id, a.happened_at, a.log_position, a.tie, a.price_usd, a.ingested_at, a.market_hash_name,
    a.wear, a.doppler_phase, a.category, a.rarity
  FROM spells_landed a
  SEMI JOIN (
    SELECT app_id, listing_id, last_sighting_id FROM carried
    UNION ALL
    SELECT app_id, listing_id, NULL FROM fresh
  ) c ON c.app_id = a.app_id AND c.listing_id = a.listing_id AND a.tie IS DISTINCT FROM c.last_sighting_id
  WHERE a.appears
  {% else %}
  SELECT app_id, listing_id, seen_at, log_position, sighting_id, price_usd, ingested_at, market_hash_name, wear, doppler_phase,
    category, rarity
  FROM stg_listing_appearances WHERE {{ in_chunk(listing_id) }}
  {% endif %}
),
marks AS (
  -- Only what ordering and numbering need: a listing's fields would make every sort wide. `tie`
  -- makes the order total: the two windows below sort the rows apart, and rows equal in their
  -- order could come out of each in another order (a poll and a sweep that saw the listing in the
  -- same millisecond: the second sighting numbered before the first one started the stay).
  -- `seed` is null but on the row standing in for a carried listing's last spell.
  SELECT app_id, listing_id, seen_at AS happened_at, log_position, true AS appears, sighting_id AS tie, price_usd,
    ingested_at, NULL::STRUCT(spell INTEGER, stay INTEGER, started_at TIMESTAMP, after_departure BOOLEAN) AS seed
  FROM sightings
  UNION ALL
  SELECT app_id, listing_id, left_at, log_position, false, via, NULL, ingested_at, NULL
  FROM stg_listing_departures
  {% if is_incremental %}
  -- A replayed or fresh listing's every departure (departures are not typed: cheap to read).
  SEMI JOIN (SELECT app_id, listing_id FROM replayed UNION ALL SELECT app_id, listing_id FROM fresh)
    USING (app_id, listing_id)
  UNION ALL
  SELECT app_id, listing_id, happened_at, log_position, false, tie, NULL, ingested_at, NULL
  FROM spells_landed
  SEMI JOIN carried USING (app_id, listing_id)
  WHERE NOT appears

  UNION ALL
  -- A carried listing's last spell as its last sighting (at its time, ask and sighting id), before
  -- every row read with it, counting as that spell and stay.
  SELECT app_id, listing_id, last_seen_at, NULL, true, last_sighting_id, ask_usd, updated_at,
    {'spell': spell, 'stay': stay, 'started_at': started_at, 'after_departure': after_departure}
  FROM carried
  {% else %} WHERE {{ in_chunk(listing_id) }} {% endif %}
),
ordered AS (
  -- At the same instant, stream events keep their log order, and a sighting comes before a
  -- departure: it was the last sighting.
  SELECT *,
    lag(appears) OVER w AS after_sighting,
    lag(price_usd) OVER w AS previous_ask
  FROM marks
  WINDOW w AS (PARTITION BY app_id, listing_id ORDER BY happened_at, log_position NULLS FIRST, appears DESC, tie)
),
numbered AS (
  SELECT app_id, listing_id, happened_at, log_position, appears, tie, ingested_at, seed,
    CAST(sum(CASE WHEN seed IS NOT NULL THEN seed.stay WHEN appears AND NOT coalesce(after_sighting, false) THEN 1
      ELSE 0 END) OVER w AS INTEGER) AS stay,
    CAST(sum(CASE WHEN seed IS NOT NULL THEN seed.spell
      WHEN appears AND (NOT coalesce(after_sighting, false) OR price_usd <> previous_ask) THEN 1 ELSE 0 END)
      OVER w AS INTEGER) AS spell
  FROM ordered
  WINDOW w AS (
    PARTITION BY app_id, listing_id ORDER BY happened_at, log_position NULLS FIRST, appears DESC, tie
    ROWS UNBOUNDED PRECEDING
  )
),
spells AS (
  SELECT app_id, listing_id, spell,
    max(stay) AS stay,
    min(coalesce(seed.started_at, happened_at)) FILTER (WHERE appears) AS started_at,
    max(happened_at) FILTER (WHERE appears) AS last_seen_at,
    min(happened_at) FILTER (WHERE NOT appears) AS left_at,
    -- The last sighting in the order above (positions are never negative).
    max({'at': happened_at, 'position': coalesce(log_position, -1), 'tie': tie}) FILTER (WHERE appears).tie
      AS last_sighting,
    max(ingested_at) AS updated_at,
    max(seed.after_departure) AS seed_after_departure
  FROM numbered
  GROUP BY app_id, listing_id, spell
),
bounded AS (
  -- A spell ends at its departure, or where the next spell of the same stay (a new ask) begins.
  -- Spell 0 holds departures before any sighting: the end of a stay the collector never saw. A
  -- carried listing's last spell keeps its own mark.
  SELECT *,
    coalesce(left_at, CASE WHEN lead(stay) OVER w = stay THEN lead(started_at) OVER w END) AS ended_at,
    coalesce(seed_after_departure, (stay > 1 OR min(spell) OVER (PARTITION BY app_id, listing_id) = 0)
      AND coalesce(lag(stay) OVER w, 0) < stay) AS after_departure
  FROM spells
  WINDOW w AS (PARTITION BY app_id, listing_id ORDER BY spell)
)
SELECT b.app_id, b.listing_id, spell, stay, after_departure, started_at, last_seen_at, ended_at, market_hash_name, wear,
  doppler_phase, category, rarity, price_usd AS ask_usd, updated_at, b.last_sighting AS last_sighting_id
FROM bounded b
-- Every spell numbered above 0 has a last sighting, unique per listing (a carried spell without a
-- sighting since, its fields as built).
JOIN (
  SELECT app_id, listing_id, sighting_id, market_hash_name, wear, doppler_phase, category, rarity, price_usd
  FROM sightings
  {% if is_incremental %}
  UNION ALL
  SELECT app_id, listing_id, last_sighting_id, market_hash_name, wear, doppler_phase, category, rarity, ask_usd
  FROM carried
  {% endif %}
) s ON s.app_id = b.app_id AND s.listing_id = b.listing_id AND s.sighting_id = b.last_sighting
WHERE spell > 0
