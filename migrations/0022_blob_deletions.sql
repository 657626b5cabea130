-- Blobs whose rows are gone (a deleted account's photos, photos deleted for good): queued in the
-- transaction that deletes the rows, deleted from the store after it commits, and tried again by a
-- periodic task while the store refuses. A key leaves the queue once its blob is gone.
CREATE TABLE blob_deletions (
    blob_key   text PRIMARY KEY,
    queued_at  timestamptz NOT NULL DEFAULT now(),
    attempts   integer NOT NULL DEFAULT 0,
    last_error text
);
