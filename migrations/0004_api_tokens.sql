-- Tokens the mobile API hands out at sign-in. One row per issued token (a person may be signed
-- in on several devices); only the SHA-256 of the token is stored. `app_key` names the app key
-- the token was issued through: that key's password decrypts the client's later requests.
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash   bytea       NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    app_key      text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz
);

CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id);
CREATE INDEX api_tokens_expires_at_idx ON api_tokens (expires_at);
