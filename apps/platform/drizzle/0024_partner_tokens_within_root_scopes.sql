-- A partner token (POST /tokens, org_id set) is made with at most the scopes of the token that
-- created it, but kept its white-label scopes (user, onboarding, legacy_onboarding, sso, billing)
-- when its partner's root client lost them (migration 0023, or `partners set-scopes`). Now a partner
-- token holds a white-label scope only while a root client of its partner does; `partners set-scopes`
-- keeps it so from here on. Hosted scopes (`companies grant`) are left alone. The tokens' families
-- lose what their client no longer has, so a refresh cannot bring it back.
WITH "narrowed" AS (
  SELECT c."id", ARRAY(
    SELECT s FROM unnest(c."scopes") WITH ORDINALITY AS t(s, i)
    WHERE s NOT IN ('user', 'onboarding', 'legacy_onboarding', 'sso', 'billing')
       OR EXISTS (
         SELECT 1 FROM "api_clients" r
         WHERE r."partner_id" = c."partner_id" AND r."org_id" IS NULL AND r."revoked_at" IS NULL
           AND s = ANY(r."scopes")
       )
    ORDER BY i
  ) AS "scopes"
  FROM "api_clients" c WHERE c."org_id" IS NOT NULL
)
UPDATE "api_clients" c SET "scopes" = n."scopes", "updated_at" = now()
FROM "narrowed" n WHERE n."id" = c."id" AND n."scopes" <> c."scopes";--> statement-breakpoint
UPDATE "token_families" f SET "scopes" = ARRAY(
  SELECT s FROM unnest(f."scopes") WITH ORDINALITY AS t(s, i) WHERE s = ANY(c."scopes") ORDER BY i
)
FROM "api_clients" c
WHERE c."id" = f."client_id" AND c."org_id" IS NOT NULL AND NOT (f."scopes" <@ c."scopes");
