/**
 * `<UnionTable name>` lists the webhooks and events a partner sends or receives from the contracts'
 * discriminated unions: every member, in order, with its fields and the values an unnamed enum allows,
 * so a guide never retypes a `type` or a status.
 */
import {
  DSP_EVENT_TYPES,
  DSP_WEBHOOK_TYPES,
  StoreStatusUpdateWebhook,
} from '@stream/contracts/apis/become-a-dsp/index';
import { PROVIDER_WEBHOOK_TYPES } from '@stream/contracts/apis/integrate-with-events/index';
import { OrderStatusUpdatedWebhook, POS_WEBHOOK_TYPES } from '@stream/contracts/apis/become-a-pos/index';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractData } from '../plugins/contract-data.ts';
import { collectedContractData } from './contract-data.ts';
import { guidePages } from './pages.ts';

let collected: ContractData;
beforeAll(async () => {
  collected = await collectedContractData();
}, 60_000);

const values = (name: string) => collected.unions[name]!.members.map((m) => m.value);
const member = (name: string, value: string) =>
  collected.unions[name]!.members.find((m) => m.value === value)!;

describe('the unions the guides list', () => {
  it('hold every webhook and event type, in the contracts order, each with its meaning', () => {
    expect(values('DspWebhook')).toEqual([...DSP_WEBHOOK_TYPES]);
    expect(values('DspEvent')).toEqual([...DSP_EVENT_TYPES]);
    expect(values('PosWebhook')).toEqual([...POS_WEBHOOK_TYPES]);
    expect(values('PosOrderRequest')).toEqual(['order.created', 'order.updated', 'order.canceled']);
    expect(values('OrderEvent')).toEqual(['order.confirmed', 'order.updated', 'order.canceled']);
    expect(values('EventProviderWebhook')).toEqual([...PROVIDER_WEBHOOK_TYPES]);
    for (const name of ['DspWebhook', 'DspEvent', 'PosWebhook', 'OrderEvent', 'EventProviderWebhook'])
      for (const m of collected.unions[name]!.members)
        expect(m.description, `${name} ${m.value}`).toBeTruthy();
  });

  it('show the values a status field allows, the optional fields and the named schemas', () => {
    expect(member('PosWebhook', 'order.status.updated').fields[0]).toEqual({
      path: 'object.status',
      optional: false,
      values: OrderStatusUpdatedWebhook.shape.object.shape.status.options,
    });
    expect(member('DspWebhook', 'store_status_update').fields).toContainEqual({
      path: 'status_update.status',
      optional: false,
      values: StoreStatusUpdateWebhook.shape.status_update.shape.status.options,
    });
    expect(member('DspEvent', 'location.pause').fields).toContainEqual({ path: 'until_ms', optional: true });
    expect(member('DspEvent', 'location.order.fail').fields).toContainEqual({
      path: 'failure_reason',
      optional: false,
      ref: 'OrderFailureReason',
    });
    // An in-store order is far too big for a table cell: named by its size only.
    expect(member('PosWebhook', 'order.created').fields).toEqual([
      { path: 'object', optional: false, fields: expect.any(Number) },
    ]);
  });

  it('are the only unions the guides name', () => {
    const named = guidePages().flatMap((p) =>
      [...p.source.matchAll(/<UnionTable\s+name="([^"]+)"/g)].map((m) => m[1]!),
    );
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(Object.keys(collected.unions), name).toContain(name);
  });
});
