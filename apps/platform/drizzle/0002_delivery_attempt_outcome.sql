ALTER TABLE "delivery_attempts" ALTER COLUMN "latency_ms" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "delivery_attempts_loose" ON "delivery_attempts" USING btree ("created_at") WHERE job_id is null;--> statement-breakpoint
-- Attempts logged before this migration were written once finished.
UPDATE "delivery_attempts" SET "finished_at" = "created_at" WHERE "finished_at" IS NULL;
