import { randomBytes } from 'node:crypto';
import {
  AssignDriverWebhook,
  ORDER_EVENT_EXAMPLES,
  UpdateDeliveryStatusWebhook,
  eventsReceiveEvent,
} from '@stream/contracts/apis/integrate-with-events/index';
import type { Check, CheckRun } from './check.ts';
import { webhookCheck } from './shared-checks.ts';

/** What an event provider must pass: each event received and its signature checked, then its webhooks. */

const EVENTS = '/docs/become-a-stream-integration/integrate-with-stream-events';
const GUIDE = {
  signature: `${EVENTS}/handling-events#check-the-signature`,
  answer: `${EVENTS}/handling-events#answer`,
  driver: `${EVENTS}/order-state-events/assign-driver`,
  status: `${EVENTS}/order-state-events/update-delivery-status`,
};

/** Where the webhooks name the events' order: its reference_id and location_id. */
const NAMES = {
  order_id: { field: 'object.order_id', is: 'the reference_id of the events the kit sent' },
  location_id: { field: 'object.location_id', is: 'the location_id of those events' },
};

/** A refusal the platform does not retry: any 4xx but those that mean "try again later". */
const refusal = (status: number) => status >= 400 && status < 500 && ![408, 425, 429].includes(status);

/** The run's order: every event and webhook names the same one, at the same location. */
function refOf(t: CheckRun) {
  t.state.referenceId ??= `ord_cert${randomBytes(10).toString('hex')}`;
  t.state.locationId ??= `loc_cert${randomBytes(10).toString('hex')}`;
  return { referenceId: t.state.referenceId, locationId: t.state.locationId };
}

function eventOf(t: CheckRun, kind: keyof typeof ORDER_EVENT_EXAMPLES) {
  const { referenceId, locationId } = refOf(t);
  const example = ORDER_EVENT_EXAMPLES[kind];
  return {
    ...example,
    location_id: locationId,
    reference_id: referenceId,
    order: { ...example.order, id: referenceId },
  };
}

export function eventsChecks(): Check[] {
  const about = (t: CheckRun) => {
    const { referenceId, locationId } = refOf(t);
    return { order_id: referenceId, location_id: locationId };
  };
  const receive = (kind: 'confirmed' | 'updated' | 'canceled'): Check => ({
    id: `events.receive.${kind}`,
    title: `order.${kind} is received and acknowledged`,
    guide: GUIDE.answer,
    async run(t) {
      const answer = await t.call({
        method: 'POST',
        path: eventsReceiveEvent.path,
        body: eventOf(t, kind),
        sign: true,
      });
      t.expect2xx(answer, `POST ${eventsReceiveEvent.path} (order.${kind}, signed)`);
    },
  });
  // The webhooks come before the cancellation: production refuses a delivery of a cancelled order (409).
  return [
    receive('confirmed'),
    receive('updated'),
    {
      id: 'events.signature.refused',
      title: 'An event with a wrong signature is refused with a 4xx',
      guide: GUIDE.signature,
      async run(t) {
        const body = eventOf(t, 'updated');
        const answer = await t.call({
          method: 'POST',
          path: eventsReceiveEvent.path,
          body,
          sign: `not-${t.ctx.webhookSecret}`,
        });
        if (!refusal(answer.status)) {
          t.fail(
            `An event whose X-Stream-Signature is not the HMAC of its body must be refused with a 4xx (401 is usual; ` +
              `not 408, 425 or 429, which ask for a retry); it answered ${answer.status}. ` +
              'Verify the signature over the raw bytes before you parse them.',
          );
        }
      },
    },
    webhookCheck({
      id: 'events.webhooks.assign-driver',
      title: 'order.assign.driver is sent, signed',
      guide: GUIDE.driver,
      type: 'order.assign.driver',
      schema: AssignDriverWebhook,
      names: NAMES,
      about,
    }),
    webhookCheck({
      id: 'events.webhooks.delivery-status',
      title: 'order.update.delivery.status is sent, signed',
      guide: GUIDE.status,
      type: 'order.update.delivery.status',
      schema: UpdateDeliveryStatusWebhook,
      names: NAMES,
      about,
    }),
    receive('canceled'),
  ];
}
