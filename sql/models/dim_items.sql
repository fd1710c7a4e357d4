-- Every item the collector has seen listed or priced, its name parsed: weapon and finish (CS2
-- skins; null for stickers, which are sold as items too),
-- wear, StatTrak, Souvenir, the ★ of knives and gloves, Doppler phase (a Doppler has a row per
-- phase, and one without), category and rarity (from its latest listing; null for an item only
-- ever seen in a price list), and the game.
-- Grain: one row per game, item name and phase.
-- materialized: incremental
-- depends_on: int_listing_spells, stg_price_lists
-- unique_key: app_id, market_hash_name, doppler_phase
-- export: snapshot
-- test: unique(app_id, market_hash_name, doppler_phase)
-- test: not_null(app_id, game, market_hash_name, stattrak, souvenir, starred)
-- test: accepted_values(game: 'cs2', 'dota2', 'rust')
-- test: accepted_values(wear: 'Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred')
-- test: expression(app_id <> 730 OR (wear IS NOT NULL) = (weapon IS NOT NULL))
-- test: expression(NOT (stattrak AND souvenir))
WITH seen AS (
  SELECT app_id, market_hash_name, doppler_phase, category, rarity, updated_at AS happened_at
  FROM int_listing_spells
  -- A sighting whose name did not type names no item.
  WHERE updated_at >= {{ since }} AND market_hash_name IS NOT NULL
  UNION ALL
  SELECT app_id, market_hash_name, doppler_phase, NULL, NULL, TIMESTAMP '1970-01-01'
  FROM stg_price_lists
  WHERE ingested_at >= {{ since }}
),
items AS (
  SELECT app_id, market_hash_name, doppler_phase, arg_max(category, happened_at) AS category, arg_max(rarity, happened_at) AS rarity
  FROM seen
  GROUP BY app_id, market_hash_name, doppler_phase
),
named AS (
  SELECT *, regexp_replace(market_hash_name, '^(★ )?(StatTrak™ )?(Souvenir )?', '') AS base,
    app_id = 730 AND market_hash_name NOT LIKE 'Sticker | %' AS skin
  FROM items
)
{% if is_incremental %}
-- Keep what an earlier build learnt of category and rarity when only a price list named the item now.
, known AS (SELECT app_id, market_hash_name, doppler_phase, category, rarity FROM {{ this }})
{% endif %}
SELECT n.app_id,
  CASE n.app_id WHEN 730 THEN 'cs2' WHEN 570 THEN 'dota2' WHEN 252490 THEN 'rust' END AS game,
  n.market_hash_name,
  CASE WHEN n.skin THEN regexp_extract(n.base, '^([^|(]+?)(?: \||$| \()', 1) END AS weapon,
  CASE WHEN n.skin THEN nullif(regexp_extract(n.base, ' \| (.+?)(?: \([^()]*\))?$', 1), '') END AS finish,
  nullif(regexp_extract(n.market_hash_name,
    '\((Factory New|Minimal Wear|Field-Tested|Well-Worn|Battle-Scarred)\)$', 1), '') AS wear,
  n.market_hash_name LIKE '%StatTrak™ %' AS stattrak,
  n.market_hash_name LIKE 'Souvenir %' AS souvenir,
  n.market_hash_name LIKE '★%' AS starred,
  n.doppler_phase,
  {% if is_incremental %}
  coalesce(n.category, k.category) AS category,
  coalesce(n.rarity, k.rarity) AS rarity
  {% else %}
  n.category,
  n.rarity
  {% endif %}
FROM named n
{% if is_incremental %}
LEFT JOIN known k
  ON k.app_id = n.app_id AND k.market_hash_name = n.market_hash_name
  AND k.doppler_phase IS NOT DISTINCT FROM n.doppler_phase
-- Only new items and items whose category or rarity changed (the other columns follow from the
-- key): each price list names every item again, and rewriting them all grew the table each minute.
WHERE k.market_hash_name IS NULL
  OR coalesce(n.category, k.category) IS DISTINCT FROM k.category
  OR coalesce(n.rarity, k.rarity) IS DISTINCT FROM k.rarity
{% endif %}
