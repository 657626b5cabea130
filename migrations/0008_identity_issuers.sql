-- An identity is a subject *at an issuer*: the same `sub` from another issuer (an operator pointing
-- GOOGLE_ISSUER or OIDC_ISSUER elsewhere, or another Facebook app, whose user ids are per app) is
-- another person. Links made before this migration keep an empty issuer and match nothing new:
-- their owners link again from the account page.
ALTER TABLE user_identities ADD COLUMN issuer text NOT NULL DEFAULT '';
ALTER TABLE user_identities DROP CONSTRAINT user_identities_provider_subject_key;
ALTER TABLE user_identities ADD CONSTRAINT user_identities_provider_issuer_subject_key UNIQUE (provider, issuer, subject);
