import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How the CLI reaches a running server: `<DATA_DIR>/admin.json`, readable only by its owner. */
export interface AdminEndpoint {
  url: string;
  token: string;
  pid: number;
}

const FILE = 'admin.json';

export function adminEndpointPath(dataDir: string): string {
  return join(dataDir, FILE);
}

/** Written to a temporary name and renamed, so a reader never sees half a file. */
export function writeAdminEndpoint(dataDir: string, endpoint: AdminEndpoint): void {
  const tmp = join(dataDir, `.${FILE}.${process.pid}`);
  writeFileSync(tmp, JSON.stringify(endpoint) + '\n', { mode: 0o600 });
  renameSync(tmp, adminEndpointPath(dataDir));
}

export function readAdminEndpoint(dataDir: string): AdminEndpoint | undefined {
  try {
    const value = JSON.parse(readFileSync(adminEndpointPath(dataDir), 'utf8')) as Partial<AdminEndpoint>;
    if (typeof value.url === 'string' && typeof value.token === 'string' && typeof value.pid === 'number') {
      return { url: value.url, token: value.token, pid: value.pid };
    }
  } catch {
    // absent or being replaced: the caller waits or falls back
  }
  return undefined;
}

/** Removes the file only if it is still ours (several servers may share a DATA_DIR on PostgreSQL). */
export function removeAdminEndpoint(dataDir: string, token: string): void {
  if (readAdminEndpoint(dataDir)?.token === token) rmSync(adminEndpointPath(dataDir), { force: true });
}
