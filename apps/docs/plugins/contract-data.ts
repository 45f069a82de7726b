import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Plugin } from '@docusaurus/types';

/** What the guides' generated tables read: `@generated/contract-data/default/contracts.json`. */
export interface ContractData {
  apiDocs: Record<string, { title: string; slug: string; route: string; envelope: 'stream' | 'hosted' }>;
  errors: Record<string, { status: number; description: string }>;
  operations: Record<
    string,
    {
      api: string;
      method: string;
      path: string;
      summary: string;
      tags: string[];
      servedBy: string;
      security: string;
      scopes: string[];
      errors: string[];
    }
  >;
  enums: Record<string, { description?: string; values: string[] }>;
  /** The state machines of the contracts (`STATE_MACHINES`), by name. */
  stateMachines: Record<string, StateMachineData>;
  /** Every named discriminated union (the webhooks and events told apart by `type`), by schema id. */
  unions: Record<string, UnionData>;
  /** The menu publish failure codes (section 8) and when each occurs. */
  menuFailureCodes: Record<string, string>;
}

/** A discriminated union: one member per value of its discriminator, in declaration order. */
export interface UnionData {
  discriminator: string;
  description?: string;
  members: { value: string; id?: string; description?: string; fields: UnionField[] }[];
}

/** A field of a union member: `status_update.status`, its values when an unnamed enum, its schema id when named. */
export interface UnionField {
  path: string;
  optional: boolean;
  values?: string[];
  ref?: string;
  /** An object too big to expand: how many fields it has. */
  fields?: number;
}

/** One state machine: its states in declaration order (the first drawn first) and its allowed moves. */
export interface StateMachineData {
  initial: string;
  /** Other states an instance may start in (a scheduled order); drawn with a start marker too. */
  entries: string[];
  states: { name: string; meaning: string }[];
  transitions: { from: string; to: string; cause: string }[];
}

/**
 * Error codes, operations, enums and state machines come from `@stream/contracts` at build time, never retyped: the
 * tables of the guides (src/components/ContractTables) render this data.
 */
export default function contractDataPlugin(): Plugin {
  return {
    name: 'contract-data',
    async loadContent(): Promise<ContractData> {
      const script = path.join(__dirname, 'collect-contract-data.mts');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
        cwd: __dirname,
        maxBuffer: 64 * 1024 * 1024,
      });
      return JSON.parse(stdout) as ContractData;
    },
    async contentLoaded({ content, actions }) {
      await actions.createData('contracts.json', JSON.stringify(content as ContractData));
    },
    getPathsToWatch() {
      return [path.join(__dirname, '../../../packages/contracts/src/**/*.ts')];
    },
  };
}
