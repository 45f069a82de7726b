CREATE TABLE "partner_circuits" (
	"partner_id" text PRIMARY KEY NOT NULL,
	"state" text DEFAULT 'closed' NOT NULL,
	"window_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"window_attempts" integer DEFAULT 0 NOT NULL,
	"window_failures" integer DEFAULT 0 NOT NULL,
	"opens" integer DEFAULT 0 NOT NULL,
	"opened_at" timestamp with time zone,
	"retry_at" timestamp with time zone,
	"last_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"location_id" text NOT NULL,
	"provider_partner_id" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"enabled_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "delivery_provider_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "provider_delivery_status" text;--> statement-breakpoint
ALTER TABLE "partner_circuits" ADD CONSTRAINT "partner_circuits_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_subscriptions" ADD CONSTRAINT "event_subscriptions_location_id_org_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."org_locations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_subscriptions" ADD CONSTRAINT "event_subscriptions_provider_partner_id_partners_id_fk" FOREIGN KEY ("provider_partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "event_subscriptions_pair" ON "event_subscriptions" USING btree ("location_id","provider_partner_id");--> statement-breakpoint
CREATE INDEX "event_subscriptions_enabled" ON "event_subscriptions" USING btree ("location_id") WHERE enabled;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_delivery_provider_id_partners_id_fk" FOREIGN KEY ("delivery_provider_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;