-- What the pages and the API serve: for each photo, copies made from the original — upright,
-- in sRGB, without any metadata (no EXIF, GPS, XMP, IPTC, ICC) — in several sizes. The original
-- (photos.blob_key) is only ever sent to its owner, as a download.
CREATE TABLE photo_renditions (
    photo_id     bigint  NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
    name         text    NOT NULL CHECK (name IN ('thumb-400', 'thumb-800', 'display-2048')),
    blob_key     text    NOT NULL UNIQUE,
    content_type text    NOT NULL,
    width        integer NOT NULL CHECK (width > 0),
    height       integer NOT NULL CHECK (height > 0),
    byte_size    bigint  NOT NULL CHECK (byte_size > 0),
    PRIMARY KEY (photo_id, name)
);

-- The original's size as shown (after its EXIF orientation); NULL until its renditions are made.
ALTER TABLE photos ADD COLUMN width integer CHECK (width > 0), ADD COLUMN height integer CHECK (height > 0);
