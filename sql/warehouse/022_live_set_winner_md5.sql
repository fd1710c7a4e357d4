-- The md5 of the text the live set typed its winner from (a page item's payload, the same for a
-- repeat as for the row it repeats; null for a stream event), so a winning repeat of that text
-- (its listing's payload mark is that row, with that md5) takes the winner's fields from the state
-- instead of looking its text up in the history. Filled from the next sighting of each listing.
ALTER TABLE live_set_state ADD COLUMN winner_md5 UHUGEINT;
