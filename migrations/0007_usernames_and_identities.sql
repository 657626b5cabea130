-- Usernames (seed 003) and sign-in with other providers (seed 004, Apple, Google, any OpenID
-- Connect issuer, Facebook, Twitter).

-- An optional username, unique regardless of case, kept in the case it was typed in.
ALTER TABLE users ADD COLUMN username text CHECK (username ~ '^[A-Za-z0-9_]{5,30}$');
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE INDEX users_username_trgm_idx ON users USING gin (lower(username) gin_trgm_ops);

-- An account made by signing in with a provider has no password until its owner sets one, and
-- no email when the provider shares none.
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE users ALTER COLUMN email DROP NOT NULL;
-- True only when a provider asserted the address verified. Addresses typed into the sign-up form
-- are not (Selfie sends no mail), so a provider's email never attaches to such an account.
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;

-- Who a person is at a provider: the provider's stable subject id, never an email.
CREATE TABLE user_identities (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider     text        NOT NULL CHECK (provider ~ '^[a-z]{2,20}$'),
    subject      text        NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    email        text,
    display_name text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT user_identities_provider_subject_key UNIQUE (provider, subject)
);
CREATE INDEX user_identities_user_id_idx ON user_identities (user_id);

-- Nonces of ID tokens already used, until the token would have expired: a token (or a nonce)
-- presented twice is refused.
CREATE TABLE used_id_token_nonces (
    issuer     text        NOT NULL,
    nonce_hash bytea       NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (issuer, nonce_hash)
);
CREATE INDEX used_id_token_nonces_expires_at_idx ON used_id_token_nonces (expires_at);

-- A browser's sign-in with a provider between leaving for it and coming back: the `state` it
-- carries (only its hash is kept), the nonce and the PKCE verifier. Used once, then deleted.
CREATE TABLE oauth_flows (
    state_hash    bytea       PRIMARY KEY,
    provider      text        NOT NULL,
    nonce         text        NOT NULL,
    code_verifier text        NOT NULL,
    -- Set when a signed-in user links a provider from the account page.
    link_user_id  bigint      REFERENCES users (id) ON DELETE CASCADE,
    return_to     text        NOT NULL DEFAULT '/gallery',
    expires_at    timestamptz NOT NULL
);
CREATE INDEX oauth_flows_expires_at_idx ON oauth_flows (expires_at);
