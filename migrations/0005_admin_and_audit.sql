-- Admin pages: searching users by email or name (any part, any case) needs trigram indexes.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX users_email_trgm_idx ON users USING gin (lower(email) gin_trgm_ops);
CREATE INDEX users_full_name_trgm_idx ON users USING gin (lower(full_name) gin_trgm_ops);
CREATE INDEX users_created_at_idx ON users (created_at, id);
ALTER TABLE users ADD COLUMN last_signed_in_at timestamptz;

-- App keys added by admins, beside the one from the environment. Only the SHA-256 of the
-- password is kept: it checks the password and is the AESCrypt key of that app's passwords.
CREATE TABLE app_keys (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name            text        NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._-]{3,64}$'),
    password_digest bytea       NOT NULL CHECK (length(password_digest) = 32),
    created_by      bigint      REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz
);

-- When each app key (environment or database) was last used.
CREATE TABLE app_key_usage (
    name         text        PRIMARY KEY,
    last_used_at timestamptz NOT NULL
);

-- Security events, append-only (a trigger refuses UPDATE, DELETE and TRUNCATE). User ids are
-- kept as plain numbers, not foreign keys, so the record outlives a deleted account.
CREATE TABLE audit_events (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at    timestamptz NOT NULL DEFAULT now(),
    event          text        NOT NULL,
    actor_id       bigint,
    target_user_id bigint,
    target         text        NOT NULL DEFAULT '',
    ip_address     text        NOT NULL DEFAULT '',
    user_agent     text        NOT NULL DEFAULT ''
);
CREATE INDEX audit_events_occurred_at_idx ON audit_events (occurred_at DESC, id DESC);
CREATE INDEX audit_events_event_idx ON audit_events (event, occurred_at DESC);
CREATE INDEX audit_events_actor_idx ON audit_events (actor_id, occurred_at DESC);
CREATE INDEX audit_events_target_idx ON audit_events (target_user_id, occurred_at DESC);

CREATE FUNCTION audit_events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only';
END
$$;
CREATE TRIGGER audit_events_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_are_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_are_append_only();
