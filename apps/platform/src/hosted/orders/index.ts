import { defineCapability } from '../../http/api.ts';
import { keepSentBodies } from '../ignored-fields.ts';
import { queryAnyCase } from '../query-any-case.ts';
import { registerApplyCreditCardPaymentRoute } from './apply-credit-card-payment.route.ts';
import { registerCancelRoute } from './cancel.route.ts';
import { registerHostedOrdersRoute } from './orders.route.ts';
import { registerOrderStatusRoute } from './status.route.ts';

/** `/Orders/*`: placing, reading, cancelling and paying orders (hosted Order API). */
export const hostedOrdersCapability = defineCapability('/Orders', (scope) => {
  keepSentBodies(scope);
  queryAnyCase(scope);
  registerHostedOrdersRoute(scope);
  registerOrderStatusRoute(scope);
  registerCancelRoute(scope);
  registerApplyCreditCardPaymentRoute(scope);
});
