-- Resumable uploads (tus 1.0, `/api/uploads`): the state lives here so that offsets survive a
-- restart and any instance can continue an upload another began; the bytes wait in the blob
-- store's part storage (a part file; an S3 multipart upload) until the last one arrives.
CREATE TABLE resumable_uploads (
    id              bigserial   PRIMARY KEY,
    -- The id in `/api/uploads/<public_id>`: 144 random bits.
    public_id       text        NOT NULL UNIQUE,
    user_id         bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Upload-Length, and how many of its bytes are stored for good (fsynced, or in a recorded part).
    length          bigint      NOT NULL CHECK (length > 0),
    stored_offset   bigint      NOT NULL DEFAULT 0 CHECK (stored_offset >= 0 AND stored_offset <= length),
    title           text        NOT NULL DEFAULT '',
    filename        text        NOT NULL DEFAULT '',
    album_id        text,
    -- What the store keeps between requests (PartState as JSON): for S3 the multipart upload, the
    -- key it began under, its recorded parts and the upload's first bytes; and, in part_tail, the
    -- bytes after the last part (less than a part: 5 MiB at most) until a part fills up.
    part_state      jsonb       NOT NULL DEFAULT '{}',
    part_tail       bytea       NOT NULL DEFAULT '',
    -- A PATCH in progress holds the upload (another is refused with 423) until it ends or, if its
    -- instance died, until the lease runs out; no connection is held meanwhile.
    lease_token     text,
    lease_until     timestamptz,
    -- The photo it became, once complete.
    photo_public_id text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL
);
CREATE INDEX resumable_uploads_user_idx ON resumable_uploads (user_id) WHERE photo_public_id IS NULL;
CREATE INDEX resumable_uploads_expires_idx ON resumable_uploads (expires_at) WHERE photo_public_id IS NULL;
