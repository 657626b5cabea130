-- People who use Selfie. Emails are unique regardless of case; the address keeps the case it was
-- typed in. Passwords are bcrypt hashes only.
CREATE TABLE users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         text        NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    full_name     text        NOT NULL CHECK (length(full_name) BETWEEN 1 AND 100),
    password_hash text        NOT NULL,
    role          text        NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
    disabled      boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX users_email_key ON users (lower(email));
