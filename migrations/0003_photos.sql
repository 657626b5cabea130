-- Photos: the row points at a blob in the blob store. `public_id` is what clients see (the API's
-- random_id); `blob_key` is the store's name for the bytes, made by the server.
CREATE TABLE photos (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id    text        NOT NULL UNIQUE CHECK (length(public_id) >= 20),
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title        text        NOT NULL DEFAULT '' CHECK (length(title) <= 500),
    blob_key     text        NOT NULL UNIQUE,
    content_type text        NOT NULL,
    byte_size    bigint      NOT NULL CHECK (byte_size > 0),
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- A user's gallery, newest first, read page by page.
CREATE INDEX photos_user_id_id_idx ON photos (user_id, id DESC);
