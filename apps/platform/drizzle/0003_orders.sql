CREATE TABLE "order_timeline" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "order_timeline_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"order_id" text NOT NULL,
	"kind" text NOT NULL,
	"type" text NOT NULL,
	"partner_id" text,
	"from_status" text,
	"to_status" text,
	"detail" text,
	"event_id" text,
	"job_id" text,
	"body" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"dsp_partner_id" text NOT NULL,
	"dsp_order_id" text NOT NULL,
	"dsp_location_id" text NOT NULL,
	"binding_id" text,
	"location_id" text,
	"org_id" text,
	"pos_partner_id" text,
	"pos_location_id" text,
	"pos_order_id" text,
	"status" text NOT NULL,
	"failure_reason" text,
	"failure_details" jsonb,
	"fulfillment_type" text NOT NULL,
	"is_future_order" boolean DEFAULT false NOT NULL,
	"requested_for" timestamp with time zone,
	"release_at" timestamp with time zone,
	"estimated_ready_at" timestamp with time zone,
	"delivery_status" text,
	"driver_details" jsonb,
	"dsp_order" jsonb NOT NULL,
	"pos_order" jsonb,
	"answer" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"type" text NOT NULL,
	"body" jsonb NOT NULL,
	"order_id" text,
	"location_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "location_bindings" ADD COLUMN "store_status" jsonb;--> statement-breakpoint
ALTER TABLE "org_locations" ADD COLUMN "prep_time_minutes" integer;--> statement-breakpoint
ALTER TABLE "org_locations" ADD COLUMN "pos_status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_locations" ADD COLUMN "paused_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "org_locations" ADD COLUMN "offline_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_timeline" ADD CONSTRAINT "order_timeline_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_timeline" ADD CONSTRAINT "order_timeline_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_timeline" ADD CONSTRAINT "order_timeline_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_dsp_partner_id_partners_id_fk" FOREIGN KEY ("dsp_partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_binding_id_location_bindings_id_fk" FOREIGN KEY ("binding_id") REFERENCES "public"."location_bindings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_location_id_org_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."org_locations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_pos_partner_id_partners_id_fk" FOREIGN KEY ("pos_partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_location_id_org_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."org_locations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_timeline_order" ON "order_timeline" USING btree ("order_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_dsp_order" ON "orders" USING btree ("dsp_partner_id","dsp_order_id");--> statement-breakpoint
CREATE INDEX "orders_pos_order" ON "orders" USING btree ("pos_partner_id","pos_location_id","pos_order_id");--> statement-breakpoint
CREATE INDEX "orders_location" ON "orders" USING btree ("location_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_events_partner" ON "webhook_events" USING btree ("partner_id","created_at");