import type { z } from 'zod';

/**
 * Schemas the documents describe by another schema: a query value parsed from its text (a string
 * on the wire, checked and turned into a number) is documented as the number it must be, with its
 * bounds, as OpenAPI parameters are.
 */
export const describedAs = new WeakMap<z.core.$ZodType, z.core.$ZodType>();
