import { eq } from 'drizzle-orm';
import { DEMO_COMPANY } from '@stream/contracts/apis/hr-menu/demo';
import type { AppContext } from '../context.ts';
import { companies } from '../db/schema/index.ts';
import { importCompany } from './companies.ts';

/**
 * Seeds the demo company of the hosted APIs' references (`DEMO_COMPANY`) when the sandbox is on and
 * it is not there yet; an operator's later changes to it are kept across restarts.
 */
export async function ensureDemoCompany(ctx: AppContext): Promise<void> {
  const [found] = await ctx.db
    .select({ id: companies.id })
    .from(companies)
    .where(eq(companies.id, DEMO_COMPANY.company.id));
  if (found) return;
  const summary = await importCompany(ctx.db, ctx.config.encryptionKey, DEMO_COMPANY);
  ctx.log.info(summary, 'demo company seeded for the hosted APIs');
}
