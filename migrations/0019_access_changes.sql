-- Each instance keeps the sessions and API tokens it looked up recently in memory (AccessCache), so
-- a signed-in request needs no query. Whatever ends or alters a way in — a sign-out, a revoked or
-- expired token, a password change, a disabled or deleted user, an edited email or role, a "confirm
-- it's you" — is announced here, at commit, to every instance listening on 'selfie_access', with the
-- user's id: each drops that user's entries. The triggers see every writer: the application's
-- statements, cascades, and an operator's psql alike. An update is announced when anything but the
-- activity stamps changed (last_seen_at, last_used_at, last_signed_in_at: written once a minute
-- per session, they would only empty caches).
CREATE FUNCTION announce_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('selfie_access', OLD.id::text);
    ELSE
        PERFORM pg_notify('selfie_access', OLD.user_id::text);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER users_access_changed
    AFTER UPDATE ON users FOR EACH ROW
    WHEN (to_jsonb(OLD) - 'last_signed_in_at' IS DISTINCT FROM to_jsonb(NEW) - 'last_signed_in_at')
    EXECUTE FUNCTION announce_access_change();
CREATE TRIGGER users_access_ended AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION announce_access_change();

CREATE TRIGGER web_sessions_access_changed
    AFTER UPDATE ON web_sessions FOR EACH ROW
    WHEN (to_jsonb(OLD) - 'last_seen_at' IS DISTINCT FROM to_jsonb(NEW) - 'last_seen_at')
    EXECUTE FUNCTION announce_access_change();
CREATE TRIGGER web_sessions_access_ended AFTER DELETE ON web_sessions FOR EACH ROW EXECUTE FUNCTION announce_access_change();

CREATE TRIGGER api_tokens_access_changed
    AFTER UPDATE ON api_tokens FOR EACH ROW
    WHEN (to_jsonb(OLD) - 'last_used_at' IS DISTINCT FROM to_jsonb(NEW) - 'last_used_at')
    EXECUTE FUNCTION announce_access_change();
CREATE TRIGGER api_tokens_access_ended AFTER DELETE ON api_tokens FOR EACH ROW EXECUTE FUNCTION announce_access_change();
