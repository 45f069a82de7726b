import type { Operation } from '../operation.ts';
import { PARTNER_AUTH_OPERATIONS } from './partner/index.ts';
import { BECOME_A_POS_OPERATIONS } from './become-a-pos/index.ts';
import { BECOME_A_DSP_OPERATIONS } from './become-a-dsp/index.ts';
import { INTEGRATE_WITH_EVENTS_OPERATIONS } from './integrate-with-events/index.ts';
import { INTEGRATION_OPERATIONS } from './partner/onboarding.ts';
import { ONBOARDING_LOCATION_OPERATIONS } from './partner/onboarding-locations.ts';
import { EVENT_PROVIDER_OPERATIONS } from './partner/event-providers.ts';
import { SSO_OPERATIONS } from './partner/sso.ts';
import { BILLING_OPERATIONS } from './partner/billing.ts';
import { ORDER_OPERATIONS } from './partner/orders.ts';
import { MENU_OPERATIONS } from './partner/menus.ts';
import { CERTIFICATION_OPERATIONS } from './partner/certification.ts';
import { HR_MENU_OPERATIONS } from './hr-menu/index.ts';
import { HR_ORDER_OPERATIONS } from './hr-orders/index.ts';
import { HR_STORE_OPERATIONS } from './hr-stores/index.ts';

/**
 * Every operation of every API document. Each API folder exports its operations; add them here
 * and they are served (platform or sandbox), documented (OpenAPI) and example-tested.
 */
export const ALL_OPERATIONS: readonly Operation[] = [
  ...PARTNER_AUTH_OPERATIONS,
  ...INTEGRATION_OPERATIONS,
  ...ONBOARDING_LOCATION_OPERATIONS,
  ...EVENT_PROVIDER_OPERATIONS,
  ...SSO_OPERATIONS,
  ...BILLING_OPERATIONS,
  ...ORDER_OPERATIONS,
  ...MENU_OPERATIONS,
  ...CERTIFICATION_OPERATIONS,
  ...BECOME_A_POS_OPERATIONS,
  ...BECOME_A_DSP_OPERATIONS,
  ...INTEGRATE_WITH_EVENTS_OPERATIONS,
  ...HR_MENU_OPERATIONS,
  ...HR_ORDER_OPERATIONS,
  ...HR_STORE_OPERATIONS,
];
