import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_OPERATIONS } from '../apis/index.ts';
import { API_DOCS, type ApiDoc, type Operation } from '../operation.ts';
import { buildOpenApiDocument } from './build.ts';

/** Where the docs site reads the documents from (generated, git-ignored). */
export const OPENAPI_DIR = fileURLToPath(new URL('../../../../apps/docs/static/openapi/', import.meta.url));

/** Writes `<slug>.json` for every API reference, even one with no operations yet. */
export function writeOpenApiDocuments(
  outDir: string = OPENAPI_DIR,
  operations: readonly Operation[] = ALL_OPERATIONS,
): { file: string; operations: number }[] {
  mkdirSync(outDir, { recursive: true });
  return (Object.keys(API_DOCS) as ApiDoc[]).map((api) => {
    const doc = buildOpenApiDocument(api, operations);
    const file = join(outDir, `${API_DOCS[api].slug}.json`);
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    return { file, operations: count };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const { file, operations } of writeOpenApiDocuments()) {
    console.log(`wrote ${relative(process.cwd(), file)} (${operations} operations)`);
  }
}
