import type { Operation } from '../operation.ts';

/**
 * Every operation of every API document. Each API folder exports its operations; add them here
 * and they are served (platform or sandbox), documented (OpenAPI) and example-tested.
 */
export const ALL_OPERATIONS: readonly Operation[] = [];
