/** Types of ensure-docs-build.mjs, for the TypeScript that imports it (tests, bench). */
export const ROOT: string;
export const DOCS_DIR: string;
export const BUILD_DIR: string;
export function sourcesMtime(): number;
export function isBuildFresh(): boolean;
export function ensureDocsBuild(opts?: {
  force?: boolean;
  log?: (line: string) => void;
  stdio?: 'inherit' | 'pipe';
  /** With `stdio: 'pipe'`, collects the build's output. */
  output?: string[];
}): Promise<{ built: boolean; ms: number }>;
