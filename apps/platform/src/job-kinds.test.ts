import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JOB_KINDS } from './job-kinds.ts';

const SRC = fileURLToPath(new URL('.', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.startsWith('testing')
        ? [join(dir, e.name)]
        : [],
  );
}

describe('JOB_KINDS', () => {
  it('lists every job kind the platform code declares, each once', () => {
    // A kind is declared as `define(JobKind|DeadlineJobKind|PartnerCallKind)<...>([policy, ]{ kind: '<name>'`.
    const declared = sources(SRC).flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      if (!/define(JobKind|DeadlineJobKind|PartnerCallKind)\b/.test(text)) return [];
      const declaration =
        /define(?:JobKind|DeadlineJobKind|PartnerCallKind)[^(]*\((?:\w+, )?\{\s*kind: '([a-z][\w.-]*)'/g;
      return [...text.matchAll(declaration)].map((m) => `${m[1]} (${relative(SRC, f)})`);
    });
    const listed = JOB_KINDS.map((k) => k.kind);
    expect(new Set(listed).size).toBe(listed.length);
    expect(declared.map((d) => d.split(' ')[0]).sort()).toEqual([...listed].sort());
  });
});
