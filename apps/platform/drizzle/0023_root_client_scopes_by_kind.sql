-- Least privilege by kind: a partner's root client got every Partner API scope (user, onboarding,
-- legacy_onboarding, sso, billing) whatever its kind; now only a white-label partner's does. A root
-- client (org_id null) of a POS, DSP or event provider that still has all five of them (the old
-- default) loses them; one whose list was set otherwise is left alone, and so are partner tokens
-- (org_id set) and white-label partners. Hosted scopes (menu, orders, stores: `companies grant`) stay.
-- Its token families lose them too, so a refresh cannot bring them back; an access token already
-- issued keeps them until it expires (at most an hour).
UPDATE "token_families" SET "scopes" = ARRAY(
  SELECT s FROM unnest("token_families"."scopes") WITH ORDINALITY AS t(s, i)
  WHERE s NOT IN ('user', 'onboarding', 'legacy_onboarding', 'sso', 'billing') ORDER BY i
)
WHERE "client_id" IN (
  SELECT c."id" FROM "api_clients" c JOIN "partners" p ON p."id" = c."partner_id"
  WHERE c."org_id" IS NULL AND p."kind" <> 'white_label'
    AND c."scopes" @> ARRAY['user', 'onboarding', 'legacy_onboarding', 'sso', 'billing']::text[]
);--> statement-breakpoint
UPDATE "api_clients" c SET "scopes" = ARRAY(
  SELECT s FROM unnest(c."scopes") WITH ORDINALITY AS t(s, i)
  WHERE s NOT IN ('user', 'onboarding', 'legacy_onboarding', 'sso', 'billing') ORDER BY i
), "updated_at" = now()
FROM "partners" p
WHERE p."id" = c."partner_id" AND c."org_id" IS NULL AND p."kind" <> 'white_label'
  AND c."scopes" @> ARRAY['user', 'onboarding', 'legacy_onboarding', 'sso', 'billing']::text[];
