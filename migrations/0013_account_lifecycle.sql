-- "Confirm it's you": when a browser last proved who it is (its sign-in, or the password typed
-- again since). Sensitive changes need this within the last ten minutes.
ALTER TABLE web_sessions ADD COLUMN confirmed_at timestamptz;
UPDATE web_sessions SET confirmed_at = created_at;
ALTER TABLE web_sessions ALTER COLUMN confirmed_at SET NOT NULL, ALTER COLUMN confirmed_at SET DEFAULT now();

-- Browsers and apps an account has signed in from (user-agent family and network, hashed), so a
-- sign-in from one not seen before can be mailed to the owner.
CREATE TABLE known_sign_ins (
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    fingerprint   bytea       NOT NULL CHECK (length(fingerprint) = 32),
    first_seen_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, fingerprint)
);

-- "Download my data" under way: one per account at a time, across instances. A row older than
-- an hour is a crashed export's and no longer counts.
CREATE TABLE data_exports_running (
    user_id    bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    started_at timestamptz NOT NULL DEFAULT now()
);
