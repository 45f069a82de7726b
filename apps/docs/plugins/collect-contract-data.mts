/**
 * Prints, as JSON, what the guides' generated tables read from `@stream/contracts`: API documents,
 * error codes, operations, enums and state machines. Run through tsx by the `contract-data` plugin (Docusaurus'
 * config loader cannot load the contracts' ES modules itself).
 */
import { z } from 'zod';
import * as contracts from '@stream/contracts';
import type { ContractData, UnionField } from './contract-data.ts';

interface EnumLike {
  options: readonly string[];
  meta(): { id?: string; description?: string } | undefined;
  _zod: { def: { type: string } };
}

function isEnum(value: unknown): value is EnumLike {
  const v = value as Partial<EnumLike> | undefined;
  return typeof v?.meta === 'function' && v._zod?.def?.type === 'enum' && Array.isArray(v.options);
}

/** The Zod internals a union table reads (zod v4's `_zod.def`). */
interface SchemaLike {
  meta(): { id?: string; description?: string } | undefined;
  _zod: {
    def: {
      type: string;
      innerType?: SchemaLike;
      shape?: Record<string, SchemaLike>;
      options?: SchemaLike[];
      values?: unknown[];
      discriminator?: string;
      entries?: Record<string, string>;
    };
    optin?: string;
  };
}

/** Expanded objects with more fields than this are shown by name only (an in-store order). */
const MAX_EXPANDED_FIELDS = 10;

/** Strips optional, nullable and default wrappers (the field's optionality is read before). */
function unwrap(schema: SchemaLike): SchemaLike {
  let s = schema;
  while (s._zod.def.innerType && ['optional', 'nullable', 'default', 'prefault'].includes(s._zod.def.type))
    s = s._zod.def.innerType;
  return s;
}

/**
 * The fields of a message, one level: a named schema (an order, the driver's details) is shown by its
 * id, an unnamed object is expanded (`status_update.status`), an unnamed enum lists its values.
 */
function fieldsOf(shape: Record<string, SchemaLike>, prefix = ''): UnionField[] {
  return Object.entries(shape).flatMap(([key, schema]): UnionField[] => {
    const path = `${prefix}${key}`;
    const optional = schema._zod.optin === 'optional';
    const inner = unwrap(schema);
    const { type } = inner._zod.def;
    const ref = inner.meta()?.id;
    if (ref) return [{ path, optional, ref }];
    if (type === 'object' && inner._zod.def.shape) {
      const nested = inner._zod.def.shape;
      if (Object.keys(nested).length <= MAX_EXPANDED_FIELDS) return fieldsOf(nested, `${path}.`);
      return [{ path, optional, fields: Object.keys(nested).length }];
    }
    if (type === 'enum' && inner._zod.def.entries)
      return [{ path, optional, values: Object.values(inner._zod.def.entries) }];
    if (type === 'literal') return [{ path, optional, values: (inner._zod.def.values ?? []).map(String) }];
    return [{ path, optional }];
  });
}

/** Every named discriminated union (`DspEvent`, `PosWebhook`): each member's discriminator value, fields and meaning. */
function collectUnions(registered: Map<string, unknown>): ContractData['unions'] {
  const unions: ContractData['unions'] = {};
  for (const [id, value] of registered) {
    const schema = value as SchemaLike;
    const { type, discriminator, options } = schema._zod?.def ?? {};
    if (type !== 'union' || !discriminator || !options) continue;
    unions[id] = {
      discriminator,
      ...(schema.meta()?.description ? { description: schema.meta()!.description } : {}),
      members: options.map((member) => {
        const shape = member._zod.def.shape ?? {};
        const { [discriminator]: tag, ...rest } = shape;
        // `{type, object}` envelopes (the POS's): the description may sit on the object.
        const description =
          member.meta()?.description ?? (rest.object && unwrap(rest.object).meta()?.description);
        return {
          value: String(tag?._zod.def.values?.[0]),
          ...(member.meta()?.id ? { id: member.meta()!.id } : {}),
          ...(description ? { description } : {}),
          fields: fieldsOf(rest),
        };
      }),
    };
  }
  return unions;
}

/** Every state machine of the contracts (`STATE_MACHINES`), by name: states with their meaning, moves with their cause. */
function collectStateMachines(): ContractData['stateMachines'] {
  return Object.fromEntries(
    contracts.STATE_MACHINES.map((m) => [
      m.name,
      {
        initial: m.initial,
        entries: [...m.entries],
        states: m.states.map((name) => ({ name, meaning: m.meaning[name] ?? '' })),
        transitions: m.transitions.map(({ from, to, cause }) => ({ from, to, cause })),
      },
    ]),
  );
}

export async function collectContractData(mod: Record<string, unknown> = contracts): Promise<ContractData> {
  const enums: ContractData['enums'] = {};
  // Named enums (`.meta({ id })`) of every contract module loaded, plus unnamed ones the index exports.
  const registered = (z.globalRegistry as unknown as { _idmap: Map<string, unknown> })._idmap;
  for (const [name, value] of [...Object.entries(mod), ...registered.entries()]) {
    if (!isEnum(value)) continue;
    const meta = value.meta() ?? {};
    enums[meta.id ?? name] = {
      ...(meta.description ? { description: meta.description } : {}),
      values: [...value.options],
    };
  }
  const operations: ContractData['operations'] = {};
  for (const op of contracts.ALL_OPERATIONS) {
    operations[op.operationId] = {
      api: op.api,
      method: op.method,
      path: op.path,
      summary: op.summary,
      tags: [...op.tags],
      servedBy: op.servedBy,
      security: op.security.kind,
      scopes: op.security.kind === 'bearer' ? [...op.security.scopes] : [],
      errors: [...op.errors],
    };
  }
  return {
    apiDocs: { ...contracts.API_DOCS },
    errors: { ...contracts.ERROR_CODES },
    operations,
    enums,
    stateMachines: collectStateMachines(),
    unions: collectUnions(registered),
    menuFailureCodes: { ...contracts.MENU_FAILURE_CODES },
  };
}

process.stdout.write(JSON.stringify(await collectContractData()));
