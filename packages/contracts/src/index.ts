export * from './common.ts';
export * from './errors.ts';
export * from './operation.ts';
export * from './apis/index.ts';
export * from './secret.ts';
export * from './states.ts';
export * from './orders.ts';
