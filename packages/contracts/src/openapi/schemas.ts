import { z } from 'zod';
import { describedAs } from './described-as.ts';

export type JsonObject = Record<string, unknown>;
/** Which side of a Zod schema to describe: what a parser accepts, or what it produces. */
export type Io = 'input' | 'output';

const COMPONENT_PREFIX = '#/components/schemas/';

/** Zod writes these on every `.int()`; they say nothing a reader needs. */
const SAFE_INT_BOUNDS: Record<string, number> = {
  minimum: Number.MIN_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
};

/**
 * Turns Zod schemas into OpenAPI 3.1 schema objects (JSON Schema 2020-12). Every schema named with
 * `.meta({ id })` becomes one entry of `components` and is referenced with `$ref` wherever it is used.
 */
export class SchemaCollector {
  readonly components: Record<string, JsonObject> = {};
  private readonly componentIo = new Map<string, Io>();

  /** `where` names the use site in error messages. */
  toSchema(schema: z.ZodType, io: Io, where: string): JsonObject {
    const { $defs, ...root } = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      override: openObjects,
    }) as JsonObject;
    for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, JsonObject>)) {
      if (id.startsWith('__schema')) {
        throw new Error(`${where}: a recursive schema needs a name; give it .meta({ id: '...' })`);
      }
      this.addComponent(id, clean(def) as JsonObject, io);
    }
    return clean(root) as JsonObject;
  }

  /**
   * One component per id. A schema used in both directions differs only where defaults make a field
   * optional on input; the input form wins because every output value also satisfies it.
   */
  private addComponent(id: string, schema: JsonObject, io: Io): void {
    const seen = this.componentIo.get(id);
    if (seen === undefined || (seen === 'output' && io === 'input')) {
      this.components[id] = schema;
      this.componentIo.set(id, io);
    }
  }
}

/**
 * The components `root` refers to, directly or through other components. A named params or query
 * object is hoisted by the conversion but inlined as parameters, so it would otherwise be left unused.
 */
export function referencedComponents(
  components: Record<string, JsonObject>,
  root: unknown,
): Record<string, JsonObject> {
  const used: Record<string, JsonObject> = {};
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      const id =
        key === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_PREFIX)
          ? v.slice(COMPONENT_PREFIX.length)
          : undefined;
      if (id === undefined) visit(v);
      else if (!used[id] && components[id]) visit((used[id] = components[id]));
    }
  };
  visit(root);
  return Object.fromEntries(
    Object.keys(components)
      .filter((id) => used[id])
      .map((id) => [id, components[id] as JsonObject]),
  );
}

/**
 * In output mode Zod closes every plain object (`additionalProperties: false`) because parsing strips
 * unknown keys. Documents must not promise that: new fields get added to answers. Strict objects keep it.
 */
function openObjects({
  zodSchema,
  jsonSchema,
}: {
  zodSchema: z.core.$ZodTypes;
  jsonSchema: JsonObject;
}): void {
  const shown = describedAs.get(zodSchema);
  if (shown) {
    // The text's own description goes; what wraps it (a default, a description) stays.
    delete jsonSchema.type;
    delete jsonSchema.pattern;
    const { $schema: _, ...described } = z.toJSONSchema(shown, { io: 'output' }) as JsonObject;
    Object.assign(jsonSchema, described);
    return;
  }
  const def = zodSchema._zod.def;
  if (def.type === 'object' && !def.catchall && jsonSchema.additionalProperties === false) {
    delete jsonSchema.additionalProperties;
  }
}

/** Drops `$schema` and the ±2^53 integer bounds, and points `$defs` refs at `components.schemas`. */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$schema' || SAFE_INT_BOUNDS[key] === v) continue;
    out[key] = key === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', COMPONENT_PREFIX) : clean(v);
  }
  return out;
}
