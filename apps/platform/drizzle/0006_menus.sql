CREATE TABLE "catalogs" (
	"id" text PRIMARY KEY NOT NULL,
	"location_id" text NOT NULL,
	"version" integer NOT NULL,
	"catalog" jsonb NOT NULL,
	"problems" jsonb NOT NULL,
	"digest" text NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "menu_items" (
	"location_id" text NOT NULL,
	"stream_id" text NOT NULL,
	"kind" text NOT NULL,
	"provider_id" text NOT NULL,
	"family_provider_id" text,
	CONSTRAINT "menu_items_location_id_stream_id_pk" PRIMARY KEY("location_id","stream_id")
);
--> statement-breakpoint
CREATE TABLE "menu_publications" (
	"id" text PRIMARY KEY NOT NULL,
	"binding_id" text NOT NULL,
	"location_id" text NOT NULL,
	"catalog_id" text NOT NULL,
	"form" text NOT NULL,
	"file" jsonb,
	"status" text NOT NULL,
	"failure_code" text,
	"failure_reason" text,
	"cause" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "catalogs" ADD CONSTRAINT "catalogs_location_id_org_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."org_locations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_items" ADD CONSTRAINT "menu_items_location_id_org_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."org_locations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_publications" ADD CONSTRAINT "menu_publications_binding_id_location_bindings_id_fk" FOREIGN KEY ("binding_id") REFERENCES "public"."location_bindings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_publications" ADD CONSTRAINT "menu_publications_location_id_org_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."org_locations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_publications" ADD CONSTRAINT "menu_publications_catalog_id_catalogs_id_fk" FOREIGN KEY ("catalog_id") REFERENCES "public"."catalogs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "catalogs_location_version" ON "catalogs" USING btree ("location_id","version");--> statement-breakpoint
CREATE INDEX "menu_publications_binding" ON "menu_publications" USING btree ("binding_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "menu_publications_in_flight" ON "menu_publications" USING btree ("binding_id") WHERE status = 'publishing';