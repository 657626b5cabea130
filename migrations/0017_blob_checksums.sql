-- The SHA-256 of every blob, recorded when it is stored, so that `selfie check` can tell a blob
-- whose bytes changed in the store. NULL for blobs stored before: the first full check computes
-- and records them.
ALTER TABLE photos ADD COLUMN sha256 bytea CHECK (length(sha256) = 32);
ALTER TABLE photo_renditions ADD COLUMN sha256 bytea CHECK (length(sha256) = 32);

-- The last integrity check of each kind ('full': `selfie check`; 'light': the periodic one, with
-- counts and a sample of checksums), for the admin page.
CREATE TABLE integrity_checks (
    kind               text        PRIMARY KEY CHECK (kind IN ('full', 'light')),
    started_at         timestamptz NOT NULL,
    finished_at        timestamptz NOT NULL,
    photos             integer     NOT NULL,
    blobs              integer     NOT NULL,
    checksums_verified integer     NOT NULL,
    -- [{"kind": …, "photo": …, "owner": …, "blob": …}], at most the first 500
    findings           jsonb       NOT NULL,
    finding_count      integer     NOT NULL
);
