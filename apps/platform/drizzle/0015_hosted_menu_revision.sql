ALTER TABLE "hosted_menus" ADD COLUMN "revision" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
-- Every update of a menu row gets a new revision, whoever writes it: processes key the parsed
-- menus they keep for pricing by it (hosted/orders/menu-for.ts).
CREATE FUNCTION "hosted_menus_revise"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW."revision" := gen_random_uuid();
	RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "hosted_menus_revise" BEFORE UPDATE ON "hosted_menus" FOR EACH ROW EXECUTE FUNCTION "hosted_menus_revise"();
