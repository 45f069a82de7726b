import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ContractData } from '../plugins/contract-data.ts';
import { DOCS_SITE } from './pages.ts';

/** What the build's `contract-data` plugin collects, run the same way (the collector through tsx). */
export async function collectedContractData(): Promise<ContractData> {
  const plugins = join(DOCS_SITE, 'plugins');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(plugins, 'collect-contract-data.mts')],
    { cwd: plugins, maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as ContractData;
}
