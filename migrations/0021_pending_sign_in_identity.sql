-- A provider's identity that found its account by the verified address, parked with the sign-in
-- while the account's second factor is owed: it is linked to the account once the code is given
-- (not before, so that a code never given leaves nothing behind), and the provider then finds the
-- account by the link even after its address changes.
ALTER TABLE pending_sign_ins
    ADD COLUMN link_provider text,
    ADD COLUMN link_issuer   text,
    ADD COLUMN link_subject  text,
    ADD COLUMN link_email    text,
    ADD COLUMN link_name     text,
    ADD CONSTRAINT pending_sign_ins_link_whole
        CHECK ((link_provider IS NULL) = (link_issuer IS NULL) AND (link_provider IS NULL) = (link_subject IS NULL));
