/** Every table, one file per capability; drizzle-kit reads this folder to write migrations. */
export * from './partners.ts';
export * from './jobs.ts';
export * from './lifecycle.ts';
export * from './sso.ts';
export * from './onboarding.ts';
export * from './orders.ts';
export * from './events.ts';
export * from './menus.ts';
export * from './hosted.ts';
export * from './certification.ts';
export * from './idempotency.ts';
