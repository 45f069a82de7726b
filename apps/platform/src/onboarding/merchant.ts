import { and, eq, inArray, sql } from 'drizzle-orm';
import { INTEGRATION_STATES, statesLeadingTo } from '@stream/contracts/states';
import { merchantConnector, type Integration } from '../connectors/index.ts';
import type { AppContext } from '../context.ts';
import { integrations } from '../db/schema/index.ts';
import { bindingsOfIntegration, moveBindings } from './bindings.ts';

/**
 * Onboarding's policy for a merchant grant a partner refused: the integration (when active) and
 * its pending or APPROVED bindings go `needs_reconnection`, with the reason, in one transaction.
 */
export async function markNeedsReconnection(
  ctx: AppContext,
  integration: Integration,
  reason: string,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(integrations)
      .set({ status: 'needs_reconnection', statusReason: reason, updatedAt: sql`now()` })
      .where(
        and(
          eq(integrations.id, integration.id),
          inArray(integrations.status, statesLeadingTo(INTEGRATION_STATES, 'needs_reconnection')),
        ),
      );
    await moveBindings(tx, bindingsOfIntegration(integration), 'needs_reconnection', reason);
  });
  ctx.log.warn({ integration: integration.id, reason }, 'integration needs reconnection');
}

/**
 * Calls to a POS or DSP as a merchant, with onboarding's policy for refused grants:
 * `merchant.call(ctx, integrationId, posCreateOrder, { body, job })`.
 */
export const merchant = merchantConnector({ onGrantRejected: markNeedsReconnection });
