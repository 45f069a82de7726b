import { eq } from 'drizzle-orm';
import type { HostedMessage } from '@stream/contracts/envelopes';
import type { DbOrTx } from '../../db/client.ts';
import { stores } from '../../db/schema/hosted.ts';
import { zoneFeeCents } from '../stores/delivery-metrics.ts';
import { spelledAsListed } from '../stores/order-types.ts';

/**
 * The fee of the delivery zone a delivery order's `customer.zoneName` names (the store's zones by
 * name, exact first, then the only one in another case): what DeliveryMetrics quotes as `deliveryFee` for an address
 * there. A name the store has no zone of, or a zone it does not deliver to, adds nothing and says so
 * in a WARNING (the order is still priced: the name is the partner's, the address is not checked).
 */
export async function zoneFeeFor(
  db: DbOrTx,
  storeId: number,
  zoneName: string,
): Promise<{ cents: number; messages: HostedMessage[] }> {
  const [row] = await db.select({ zones: stores.geoFences }).from(stores).where(eq(stores.id, storeId));
  const zones = row?.zones ?? [];
  const spelled = spelledAsListed(
    zoneName,
    zones.map((z) => z.id),
  );
  const zone = zones.find((z) => z.id === spelled);
  const warn = (message: string) => ({
    cents: 0,
    messages: [{ id: 'body.data.customer.zoneName', message, messageType: 'WARNING' as const }],
  });
  if (!zone) {
    const names = zones.map((z) => z.id).join(', ') || 'none';
    return warn(`The store has no delivery zone ${zoneName} (its zones: ${names}); no zone fee was added.`);
  }
  if (!zone.delivery) return warn(`The store does not deliver to zone ${zone.id}; no zone fee was added.`);
  return { cents: zoneFeeCents(zone), messages: [] };
}
