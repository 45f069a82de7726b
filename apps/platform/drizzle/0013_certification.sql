CREATE TABLE "certification_files" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"body" jsonb NOT NULL,
	"downloads" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "certification_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"base_url" text NOT NULL,
	"menu_form" text DEFAULT 'v1' NOT NULL,
	"report" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "certification_webhooks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"path" text NOT NULL,
	"raw" text NOT NULL,
	"signature" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "certified_run_id" text;--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "certified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "live_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "certification_files" ADD CONSTRAINT "certification_files_run_id_certification_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."certification_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "certification_runs" ADD CONSTRAINT "certification_runs_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "certification_webhooks" ADD CONSTRAINT "certification_webhooks_run_id_certification_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."certification_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "certification_runs_one_active" ON "certification_runs" USING btree ("partner_id") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "certification_runs_partner" ON "certification_runs" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE INDEX "certification_webhooks_run" ON "certification_webhooks" USING btree ("run_id","id");