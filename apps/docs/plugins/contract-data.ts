import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Plugin } from '@docusaurus/types';

/** What the guides' generated tables read: `@generated/contract-data/default/contracts.json`. */
export interface ContractData {
  apiDocs: Record<string, { title: string; slug: string; route: string }>;
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
  /** The platform's state machines (apps/platform/src/**\/*-states.ts), by name. */
  stateMachines: Record<string, { states: string[]; transitions: Record<string, string[]> }>;
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
      return [
        path.join(__dirname, '../../../packages/contracts/src/**/*.ts'),
        path.join(__dirname, '../../platform/src/**/*-states.ts'),
      ];
    },
  };
}
