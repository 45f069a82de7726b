ALTER TABLE "stores" ADD COLUMN "geo_fences" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "order_types" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "gateway_credentials" jsonb DEFAULT '[]'::jsonb NOT NULL;