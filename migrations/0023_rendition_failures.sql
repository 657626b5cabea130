-- When the background backfill last failed to make a photo's renditions (its original unreadable,
-- undecodable, the store out of reach): such a photo is tried again an hour later, not every five
-- minutes (each try reads the whole original from the store). A success clears it.
ALTER TABLE photos ADD COLUMN renditions_failed_at timestamptz;
