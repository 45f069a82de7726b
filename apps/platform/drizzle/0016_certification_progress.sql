ALTER TABLE "certification_runs" ADD COLUMN "current_check" text;--> statement-breakpoint
ALTER TABLE "certification_runs" ADD COLUMN "waiting_for" jsonb;