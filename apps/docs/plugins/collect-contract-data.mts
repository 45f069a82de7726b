/**
 * Prints, as JSON, what the guides' generated tables read from `@stream/contracts`: API documents,
 * error codes, operations, enums and state machines. Run through tsx by the `contract-data` plugin (Docusaurus'
 * config loader cannot load the contracts' ES modules itself).
 */
import { z } from 'zod';
import * as contracts from '@stream/contracts';
import type { ContractData } from './contract-data.ts';

interface EnumLike {
  options: readonly string[];
  meta(): { id?: string; description?: string } | undefined;
  _zod: { def: { type: string } };
}

function isEnum(value: unknown): value is EnumLike {
  const v = value as Partial<EnumLike> | undefined;
  return typeof v?.meta === 'function' && v._zod?.def?.type === 'enum' && Array.isArray(v.options);
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
  };
}

process.stdout.write(JSON.stringify(await collectContractData()));
