-- When the photo was taken, read from its EXIF DateTimeOriginal (with OffsetTimeOriginal, else
-- as UTC) before the metadata is stripped; NULL when the file does not say. Galleries and albums
-- sort by it, falling back to the upload time.
ALTER TABLE photos ADD COLUMN taken_at timestamptz;

-- A user's gallery in the order it is shown: latest taken (or uploaded) first, id breaking ties.
CREATE INDEX photos_user_shown_at_idx ON photos (user_id, (coalesce(taken_at, created_at)) DESC, id DESC);

-- What the foreign keys below point at: a photo together with its owner, so that an album, its
-- cover and a share link can only ever hold their own owner's photos, whatever a query does.
ALTER TABLE photos ADD CONSTRAINT photos_id_user_id_key UNIQUE (id, user_id);

-- Albums: a name, a description and a cover; a photo can be in any number of them, and deleting
-- an album leaves its photos in the gallery.
CREATE TABLE albums (
    id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id      text        NOT NULL UNIQUE CHECK (length(public_id) >= 20),
    user_id        bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title          text        NOT NULL CHECK (length(btrim(title)) BETWEEN 1 AND 200),
    description    text        NOT NULL DEFAULT '' CHECK (length(description) <= 2000),
    -- The photo its card shows; NULL: the album's latest photo.
    cover_photo_id bigint,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, user_id),
    FOREIGN KEY (cover_photo_id, user_id) REFERENCES photos (id, user_id) ON DELETE SET NULL (cover_photo_id)
);
CREATE INDEX albums_user_id_idx ON albums (user_id, id DESC);

CREATE TABLE album_photos (
    album_id bigint      NOT NULL,
    photo_id bigint      NOT NULL,
    -- The owner of both: an album holds only its owner's photos.
    user_id  bigint      NOT NULL,
    added_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (album_id, photo_id),
    FOREIGN KEY (album_id, user_id) REFERENCES albums (id, user_id) ON DELETE CASCADE,
    FOREIGN KEY (photo_id, user_id) REFERENCES photos (id, user_id) ON DELETE CASCADE
);
-- Which albums hold a photo (its page; removing it from all when it is deleted).
CREATE INDEX album_photos_photo_id_idx ON album_photos (photo_id);

-- Share links: `/s/<token>` shows one photo or one album to whoever holds the token. Only the
-- token's SHA-256 is kept, so the database alone cannot open a link; the link dies with its album,
-- photo or owner (the foreign keys), and is refused while its owner is disabled.
CREATE TABLE share_links (
    id                 bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- What the owner's pages and the API call the link (never the token).
    public_id          text        NOT NULL UNIQUE CHECK (length(public_id) >= 20),
    user_id            bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash         bytea       NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    album_id           bigint,
    photo_id           bigint,
    -- NULL: never expires, which the owner picked explicitly.
    expires_at         timestamptz,
    -- bcrypt; NULL: no password.
    password_hash      text,
    allow_download     boolean     NOT NULL DEFAULT false,
    views              bigint      NOT NULL DEFAULT 0,
    last_viewed_at     timestamptz,
    -- Wrong passwords in the window that started at password_window_start (claimed before each
    -- check, so guesses sent at once are all counted).
    password_failures  integer     NOT NULL DEFAULT 0,
    password_window_start timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    CHECK ((album_id IS NULL) <> (photo_id IS NULL)),
    -- Only the owner's album or photo (a NULL side is not checked).
    FOREIGN KEY (album_id, user_id) REFERENCES albums (id, user_id) ON DELETE CASCADE,
    FOREIGN KEY (photo_id, user_id) REFERENCES photos (id, user_id) ON DELETE CASCADE
);
CREATE INDEX share_links_user_id_idx ON share_links (user_id, id DESC);
CREATE INDEX share_links_album_id_idx ON share_links (album_id) WHERE album_id IS NOT NULL;
CREATE INDEX share_links_photo_id_idx ON share_links (photo_id) WHERE photo_id IS NOT NULL;
