export * from './common.ts';
export * from './errors.ts';
export * from './operation.ts';
export * from './apis/index.ts';
export * from './secret.ts';
export * from './states.ts';
export * from './orders.ts';
export { MENU_FAILURE_CODES, type MenuFailureCode } from './apis/become-a-pos/menu-events.ts';
