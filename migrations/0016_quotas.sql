-- Storage quotas. NULL follows DEFAULT_QUOTA_BYTES; 0 is no limit; otherwise the most bytes the
-- user may keep, counting originals, renditions and the trash (photos.byte_size plus
-- photo_renditions.byte_size). Uploads lock the user's row while they count, so two uploads at
-- once never pass the quota together.
ALTER TABLE users ADD COLUMN quota_bytes bigint CHECK (quota_bytes >= 0);
