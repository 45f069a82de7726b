DROP INDEX "stores_position";--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "system_message" text;--> statement-breakpoint
CREATE INDEX "stores_position" ON "stores" USING btree ("company_id","latitude","longitude");