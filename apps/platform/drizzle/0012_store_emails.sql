CREATE TABLE "store_emails" (
	"id" text PRIMARY KEY NOT NULL,
	"store_id" integer NOT NULL,
	"partner_id" text NOT NULL,
	"message" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"message_id" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "store_emails" ADD CONSTRAINT "store_emails_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_emails" ADD CONSTRAINT "store_emails_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "store_emails_store" ON "store_emails" USING btree ("store_id","created_at");