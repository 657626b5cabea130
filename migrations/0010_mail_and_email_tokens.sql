-- Mail waits here until it is delivered (a transactional outbox): a message is written in the same
-- transaction as whatever it tells about (a reset token, a changed address), and a sender — on any
-- instance — delivers it. A sender holds the row's lock (FOR UPDATE SKIP LOCKED) while it sends and
-- records the outcome in that transaction, so two instances never send the same one, and a sender
-- that dies mid-send releases it at once. The body is composed when it is sent, from `kind` and
-- `params`; `params` (which may hold a link's token) is cleared once it is sent or given up.
CREATE TABLE mail_outbox (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id      text        NOT NULL UNIQUE,
    recipient       text        NOT NULL,
    recipient_name  text,
    kind            text        NOT NULL,
    params          jsonb       NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz,
    failed_at       timestamptz,
    last_error      text
);

-- What a sender looks for: undelivered messages that are due.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at, id) WHERE sent_at IS NULL AND failed_at IS NULL;

-- Links sent by mail: confirm an address, reset a password, confirm a new address. Only the
-- SHA-256 of the token is kept; a token works once (`used_at`) and until `expires_at`.
CREATE TABLE email_tokens (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash bytea       NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    purpose    text        NOT NULL CHECK (purpose IN ('verify_email', 'reset_password', 'change_email')),
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);

CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, purpose);
