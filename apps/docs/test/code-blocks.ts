import type { MarkdownPage } from './pages.ts';

/** A fenced code block of a Markdown page, with the attributes of its info string. */
export interface CodeBlock {
  /** `file:line` of the opening fence, for failure messages. */
  where: string;
  lang: string;
  /** `title="Request a token" schema=requestToken.201 run` → `{ title: 'Request a token', schema: '…', run: true }`. */
  meta: Record<string, string | true>;
  code: string;
}

const ATTRIBUTE = /(\w[\w-]*)(?:=(?:"([^"]*)"|'([^']*)'|(\S+)))?/g;

export function parseMeta(info: string): Record<string, string | true> {
  const meta: Record<string, string | true> = {};
  for (const m of info.matchAll(ATTRIBUTE)) meta[m[1]!] = m[2] ?? m[3] ?? m[4] ?? true;
  return meta;
}

/** Every fenced block of a page (``` or ~~~, any length, closed by the same fence). */
export function codeBlocks(page: MarkdownPage): CodeBlock[] {
  const lines = page.source.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,}|~{3,})\s*([\w+-]*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[j]!))
      body.push(lines[j++]!);
    blocks.push({
      where: `${page.file}:${i + 1}`,
      lang: open[2] ?? '',
      meta: parseMeta(open[3] ?? ''),
      code: body.join('\n'),
    });
    i = j;
  }
  return blocks;
}

export const isShell = (b: CodeBlock) => ['bash', 'sh', 'shell'].includes(b.lang);
/** A curl example: every one is run against a test platform. */
export const isCurl = (b: CodeBlock) => isShell(b) && /(^|[\s;|&(])curl\s/.test(b.code);
