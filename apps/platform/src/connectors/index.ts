/**
 * Connectors: how the platform calls partners. Orders, menus, events and onboarding call partners
 * through here, never through HTTP of their own.
 * - `merchantConnector(hooks).call(ctx, integrationId, op, input)`: an operation a POS or DSP
 *   builds, as the merchant (token refresh, 401 retry, `onGrantRejected`).
 * - `callOperation(ctx, target, op, input, token?)`: an operation with no merchant grant.
 * - `deliver(ctx, request)`: raw outbound HTTP (generic `partner.http` jobs), with the delivery log.
 */
export * from './call.ts';
export * from './http.ts';
export * from './merchant.ts';
export * from './operations.ts';
