-- additive: an index older builds never use; they run on this schema as they are.
-- The sweep and the integrity check read the rows a part at a time, by the first characters of
-- their blob keys (`BlobNamePrefixes`). The unique indexes order keys by the database's collation,
-- in which a prefix is not a range; these order them byte by byte, so a part is one range scan
-- instead of a scan of the whole table per part.
CREATE INDEX photos_blob_key_bytes_idx ON photos (blob_key COLLATE "C");
CREATE INDEX photo_renditions_blob_key_bytes_idx ON photo_renditions (blob_key COLLATE "C");
