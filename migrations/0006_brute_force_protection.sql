-- Failed sign-ins per account (keyed by the lower-cased email typed, so that an email without an
-- account locks exactly like one with an account and lockout reveals nothing). Shared by the
-- web and the API, and by every instance.
CREATE TABLE sign_in_failures (
    email_key   text        NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_email_key_idx ON sign_in_failures (email_key, occurred_at);

-- Fixed-window request counters per client address and action.
CREATE TABLE rate_limit_counters (
    action       text        NOT NULL,
    client       text        NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer     NOT NULL,
    PRIMARY KEY (action, client, window_start)
);
CREATE INDEX rate_limit_counters_window_start_idx ON rate_limit_counters (window_start);
