-- A second factor: an authenticator app (TOTP) with single-use recovery codes, browsers that may
-- skip the code for 30 days, sign-ins waiting for their code, and passkeys (WebAuthn) with the
-- one-time challenges of their ceremonies. Nothing here holds a usable secret in the clear: the
-- TOTP secret is sealed (AES-GCM, key derived from SECRET_KEY), codes and tokens are SHA-256.
CREATE TABLE totp_factors (
    user_id        bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret_sealed  bytea       NOT NULL,
    -- NULL while the person has scanned the code but not yet typed one back.
    confirmed_at   timestamptz,
    -- The time step of the last code accepted: it and older steps are refused (no replay).
    last_used_step bigint,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE recovery_codes (
    user_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash bytea       NOT NULL CHECK (length(code_hash) = 32),
    used_at   timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE remembered_browsers (
    token_hash bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX remembered_browsers_user_id ON remembered_browsers (user_id);

-- The password (or provider) was right; the code is still to come. The hash pins the password
-- that was checked, as for sessions.
CREATE TABLE pending_sign_ins (
    token_hash    bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    password_hash text,
    return_to     text        NOT NULL,
    expires_at    timestamptz NOT NULL
);

-- WebAuthn's user.id: random, so a passkey names no email or database id.
ALTER TABLE users ADD COLUMN webauthn_user_handle bytea UNIQUE;

CREATE TABLE passkeys (
    id            bigserial   PRIMARY KEY,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id bytea       NOT NULL UNIQUE,
    public_key    bytea       NOT NULL,
    sign_count    bigint      NOT NULL,
    name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    backed_up     boolean     NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz
);
CREATE INDEX passkeys_user_id ON passkeys (user_id);

CREATE TABLE webauthn_challenges (
    challenge  bytea       PRIMARY KEY CHECK (length(challenge) = 32),
    purpose    text        NOT NULL CHECK (purpose IN ('register', 'sign-in')),
    -- The account adding a passkey; NULL for a sign-in (the passkey says whose it is).
    user_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
