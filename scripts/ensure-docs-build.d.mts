/** Types of ensure-docs-build.mjs, for the TypeScript that imports it (tests, bench). */
export const ROOT: string;
export const DOCS_DIR: string;
export const BUILD_DIR: string;
/** SHA-256 of the site's source files (paths and contents) under `root` (default: this repository). */
export function sourcesHash(root?: string): string;
/** True when `root`'s docs build exists and was made from its sources as they are now. */
export function isBuildFresh(root?: string): boolean;
/** Stops a build in progress: its child processes get `signal` (default SIGTERM). */
export function stopDocsBuild(signal?: NodeJS.Signals): void;
export function ensureDocsBuild(opts?: {
  force?: boolean;
  log?: (line: string) => void;
  stdio?: 'inherit' | 'pipe';
  /** With `stdio: 'pipe'`, collects the build's output. */
  output?: string[];
}): Promise<{ built: boolean; ms: number }>;
