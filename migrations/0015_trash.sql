-- The trash: a deleted photo keeps its row and blobs for TRASH_DAYS, hidden from the gallery,
-- albums, share links and the API, until it is restored or its time is up.
ALTER TABLE photos ADD COLUMN trashed_at timestamptz;

-- What galleries and albums read is only what is not in the trash.
DROP INDEX photos_user_shown_at_idx;
CREATE INDEX photos_user_shown_at_idx ON photos (user_id, (coalesce(taken_at, created_at)) DESC, id DESC) WHERE trashed_at IS NULL;
-- A user's trash, and the periodic purge of what has been there too long.
CREATE INDEX photos_trashed_at_idx ON photos (trashed_at, user_id) WHERE trashed_at IS NOT NULL;
