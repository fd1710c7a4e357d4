-- One name per relation: a relation's own name reads it whole, its rows in the file and its days in
-- the lake, for a landing table as for a model. So each landing table's rows in the file move to
-- <table>__hot (what landing writes and looks up), and the warehouse recreates <table> at every
-- read-write open as the view over that and the lake's files (src/warehouse/lake/lake-views.ts),
-- as it does for a model once it moved. The former history.<table> views go with their schema.
ALTER TABLE raw_listing_events RENAME TO raw_listing_events__hot;
ALTER TABLE raw_listing_observations RENAME TO raw_listing_observations__hot;
ALTER TABLE raw_listing_repeats RENAME TO raw_listing_repeats__hot;
ALTER TABLE raw_price_snapshots RENAME TO raw_price_snapshots__hot;
ALTER TABLE raw_price_snapshot_repeats RENAME TO raw_price_snapshot_repeats__hot;
ALTER TABLE raw_minask_prices RENAME TO raw_minask_prices__hot;
ALTER TABLE raw_minask_price_repeats RENAME TO raw_minask_price_repeats__hot;
ALTER TABLE raw_fx_rates RENAME TO raw_fx_rates__hot;
ALTER TABLE raw_fx_rate_repeats RENAME TO raw_fx_rate_repeats__hot;
ALTER TABLE raw_account_transactions RENAME TO raw_account_transactions__hot;
ALTER TABLE raw_account_states RENAME TO raw_account_states__hot;
ALTER TABLE raw_account_state_repeats RENAME TO raw_account_state_repeats__hot;
