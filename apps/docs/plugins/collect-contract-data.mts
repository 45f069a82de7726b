/**
 * Prints, as JSON, what the guides' generated tables read from `@stream/contracts`: API documents,
 * error codes, operations and enums. Run through tsx by the `contract-data` plugin (Docusaurus'
 * config loader cannot load the contracts' ES modules itself).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import * as contracts from '@stream/contracts';
import type { ContractData } from './contract-data.ts';

const PLATFORM_SRC = join(import.meta.dirname, '../../platform/src');

interface EnumLike {
  options: readonly string[];
  meta(): { id?: string; description?: string } | undefined;
  _zod: { def: { type: string } };
}

function isEnum(value: unknown): value is EnumLike {
  const v = value as Partial<EnumLike> | undefined;
  return typeof v?.meta === 'function' && v._zod?.def?.type === 'enum' && Array.isArray(v.options);
}

interface MachineLike {
  name: string;
  states: readonly string[];
  transitions: Record<string, readonly string[]>;
}

function isMachine(value: unknown): value is MachineLike {
  const v = value as Partial<MachineLike> | undefined;
  return typeof v?.name === 'string' && Array.isArray(v.states) && typeof v.transitions === 'object';
}

/** Every state machine the platform writes down (`defineStateMachine` in a `*-states.ts` file), by name. */
async function collectStateMachines(): Promise<ContractData['stateMachines']> {
  const files = readdirSync(PLATFORM_SRC, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('-states.ts'),
  );
  const machines: ContractData['stateMachines'] = {};
  for (const file of files.sort()) {
    const mod = (await import(pathToFileURL(join(PLATFORM_SRC, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      if (!isMachine(value)) continue;
      machines[value.name] = {
        states: [...value.states],
        transitions: Object.fromEntries(Object.entries(value.transitions).map(([k, v]) => [k, [...v]])),
      };
    }
  }
  return machines;
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
    stateMachines: await collectStateMachines(),
  };
}

process.stdout.write(JSON.stringify(await collectContractData()));
