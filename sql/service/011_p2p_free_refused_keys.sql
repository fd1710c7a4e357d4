-- A P2P publish refused up front (asset_revision_changed, already_listed) wrote nothing, so its
-- Idempotency-Key no longer records it: the key stays free for the item, as for every other
-- refusal. Earlier versions recorded such refusals and answered idempotency_key_consumed to a
-- retry; this frees those keys. The error columns stay for older databases and are no longer set.
DELETE FROM p2p_publish_keys WHERE listing_id IS NULL;
