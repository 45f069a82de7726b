CREATE TABLE "card_transactions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "card_transactions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"order_id" integer NOT NULL,
	"card_key" text NOT NULL,
	"status" text NOT NULL,
	"type" text NOT NULL,
	"amount" integer NOT NULL,
	"tip" integer NOT NULL,
	"card_brand" text NOT NULL,
	"last4" text NOT NULL,
	"payment" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "companies" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "company_grants" (
	"company_id" integer NOT NULL,
	"partner_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "company_grants_company_id_partner_id_pk" PRIMARY KEY("company_id","partner_id")
);
--> statement-breakpoint
CREATE TABLE "hosted_menus" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "hosted_menus_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"store_id" integer NOT NULL,
	"name" text NOT NULL,
	"service_types" text[] NOT NULL,
	"menu" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hosted_order_stages" (
	"order_id" integer NOT NULL,
	"name" text NOT NULL,
	"start_time" timestamp with time zone DEFAULT now() NOT NULL,
	"end_time" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "hosted_orders" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "hosted_orders_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"store_id" integer NOT NULL,
	"partner_id" text NOT NULL,
	"service_type" text NOT NULL,
	"status" text NOT NULL,
	"reject_reason" text,
	"source_reference_id" text,
	"customer_id" text,
	"phone_number" text,
	"business_date" date NOT NULL,
	"estimated_time" timestamp with time zone,
	"order" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stores" (
	"id" integer PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"name" text NOT NULL,
	"phone_number" text,
	"email" text,
	"address" text,
	"additional_address_info" text,
	"city" text,
	"state" text,
	"postalcode" text,
	"time_zone" text NOT NULL,
	"latitude" double precision,
	"longitude" double precision,
	"primary_contact" jsonb,
	"payment_address_required" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "card_transactions" ADD CONSTRAINT "card_transactions_order_id_hosted_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."hosted_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_grants" ADD CONSTRAINT "company_grants_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_grants" ADD CONSTRAINT "company_grants_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosted_menus" ADD CONSTRAINT "hosted_menus_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosted_order_stages" ADD CONSTRAINT "hosted_order_stages_order_id_hosted_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."hosted_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosted_orders" ADD CONSTRAINT "hosted_orders_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosted_orders" ADD CONSTRAINT "hosted_orders_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "card_transactions_order" ON "card_transactions" USING btree ("order_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "card_transactions_once_per_card" ON "card_transactions" USING btree ("order_id","card_key") WHERE status = 'SUCCESS';--> statement-breakpoint
CREATE INDEX "company_grants_partner" ON "company_grants" USING btree ("partner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "hosted_menus_store_name" ON "hosted_menus" USING btree ("store_id","name");--> statement-breakpoint
CREATE INDEX "hosted_order_stages_order" ON "hosted_order_stages" USING btree ("order_id","start_time");--> statement-breakpoint
CREATE INDEX "hosted_orders_store_date" ON "hosted_orders" USING btree ("store_id","business_date");--> statement-breakpoint
CREATE INDEX "hosted_orders_reference" ON "hosted_orders" USING btree ("store_id","source_reference_id");--> statement-breakpoint
CREATE INDEX "stores_company" ON "stores" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "stores_position" ON "stores" USING btree ("latitude","longitude");