import { z } from 'zod';

/**
 * Fields that carry a secret (client secrets, authorization codes, access and refresh tokens,
 * login and session tokens). Marked once here, in the contract, so whatever records traffic (the
 * platform's delivery log) can drop them by schema instead of by a list of names kept elsewhere.
 * A registry of its own rather than `.meta()`, so the mark never leaks into the OpenAPI documents.
 */
const SECRETS = z.registry();

/**
 * Marks `schema` as a secret and answers it. Apply it last (`secret(z.string().min(1).meta(...))`):
 * `.meta()`, `.describe()` and refinements make new schemas, which would not carry the mark;
 * wrapping it afterwards (`.optional()`, `.nullable()`) is fine.
 */
export function secret<T extends z.ZodType>(schema: T): T {
  SECRETS.add(schema);
  return schema;
}

export function isSecret(schema: z.ZodType): boolean {
  return SECRETS.has(schema);
}

export const REDACTED = '[redacted]';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Def = { type: string } & Record<string, any>;
const defOf = (schema: z.ZodType): Def => (schema as any)._zod.def as Def;

/** Schema types that wrap one `innerType` and hold the same values. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The schemas a def points to (the branches `redactSecrets` walks). */
function children(def: Def): z.ZodType[] {
  if (WRAPPERS.has(def.type)) return [def.innerType];
  switch (def.type) {
    case 'pipe':
      return [def.in, def.out];
    case 'lazy':
      return [def.getter()];
    case 'union':
      return def.options as z.ZodType[];
    case 'intersection':
      return [def.left, def.right];
    case 'array':
      return [def.element];
    case 'record':
      return [def.valueType];
    case 'object':
      return Object.values(def.shape as Record<string, z.ZodType>);
    default:
      return [];
  }
}

const holdsSecrets = new WeakMap<z.ZodType, boolean>();

function findSecret(schema: z.ZodType, visiting: Set<z.ZodType>): boolean {
  if (isSecret(schema)) return true;
  if (visiting.has(schema)) return false; // a recursive schema: decided by its other branches
  visiting.add(schema);
  return children(defOf(schema)).some((c) => findSecret(c, visiting));
}

/** Whether any field of `schema`, at any depth, is marked secret (remembered per schema). */
export function hasSecrets(schema: z.ZodType): boolean {
  let found = holdsSecrets.get(schema);
  if (found === undefined) holdsSecrets.set(schema, (found = findSecret(schema, new Set())));
  return found;
}

/**
 * `value` with every field `schema` marks secret replaced by {@link REDACTED}, at any depth
 * (objects, arrays, records, unions: a field secret in any branch is redacted). Fields the schema
 * does not know are kept; `value` itself is not changed.
 */
export function redactSecrets(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema || value === undefined || value === null || !hasSecrets(schema)) return value;
  if (isSecret(schema)) return REDACTED;
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return redactSecrets(def.innerType, value);
  switch (def.type) {
    case 'pipe':
      return redactSecrets(def.out, redactSecrets(def.in, value));
    case 'lazy':
      return redactSecrets(def.getter(), value);
    case 'union':
      return (def.options as z.ZodType[]).reduce<unknown>((v, option) => redactSecrets(option, v), value);
    case 'intersection':
      return redactSecrets(def.right, redactSecrets(def.left, value));
    case 'array':
      return Array.isArray(value) ? value.map((v) => redactSecrets(def.element, v)) : value;
    case 'record':
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(def.valueType, v)]));
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = def.shape as Record<string, z.ZodType>;
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, Object.hasOwn(shape, k) ? redactSecrets(shape[k], v) : v]),
      );
    }
    default:
      return value;
  }
}
