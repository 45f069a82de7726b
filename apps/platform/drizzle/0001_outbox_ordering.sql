CREATE TABLE "leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "jobs_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "ordering_key" text;--> statement-breakpoint
CREATE INDEX "jobs_ordering" ON "jobs" USING btree ("ordering_key","seq") WHERE ordering_key is not null and status in ('pending', 'running');--> statement-breakpoint
CREATE INDEX "jobs_finished" ON "jobs" USING btree ("finished_at") WHERE status in ('succeeded', 'dead');--> statement-breakpoint
-- Workers LISTEN on jobs_due: a committed enqueue wakes them at once, in every process. The payload
-- is the job's run_at in epoch ms, so a job enqueued for later sets a timer instead of a claim.
CREATE FUNCTION "jobs_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobs_due', (extract(epoch from NEW.run_at) * 1000)::bigint::text);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "jobs_notify" AFTER INSERT ON "jobs" FOR EACH ROW EXECUTE FUNCTION "jobs_notify"();
