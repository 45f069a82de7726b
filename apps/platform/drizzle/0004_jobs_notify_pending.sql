-- A job enqueued already claimed by the process that will run it (`runHere`) needs no wake-up:
-- only pending jobs notify the workers.
DROP TRIGGER "jobs_notify" ON "jobs";--> statement-breakpoint
CREATE TRIGGER "jobs_notify" AFTER INSERT ON "jobs" FOR EACH ROW WHEN (NEW.status = 'pending') EXECUTE FUNCTION "jobs_notify"();
