-- What an account is shown in: its language (else the browser's Accept-Language), the time zone
-- its times are written in (taken from the browser once, then kept), and its colours (the
-- system's, or always light or dark). NULL means "not chosen": the browser's own setting is used.
-- A change is announced like any other change of the users row (0019), so every instance's
-- memory of the account's sessions is dropped and the next page shows the new choice.
ALTER TABLE users
    ADD COLUMN language  text CHECK (language IN ('en', 'de', 'es')),
    ADD COLUMN time_zone text CHECK (length(time_zone) BETWEEN 1 AND 64),
    ADD COLUMN theme     text CHECK (theme IN ('system', 'light', 'dark'));

-- Mail goes out in the recipient's language, chosen when the message is queued.
ALTER TABLE mail_outbox ADD COLUMN language text;
