import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { API_DOCS } from '@stream/contracts/operation';

export const DOCS_SITE = join(import.meta.dirname, '..');

export interface MarkdownPage {
  /** The file, relative to apps/docs. */
  file: string;
  route: string;
  /** The page's h1: its first `# ` heading, else its front matter `title` (what Docusaurus shows). */
  title: string;
  source: string;
}

function frontMatter(source: string): Record<string, string> {
  const block = /^---\n([\s\S]*?)\n---/.exec(source)?.[1] ?? '';
  return Object.fromEntries(
    block
      .split('\n')
      .map((line) => /^(\w+):\s*(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!.replace(/^(['"])(.*)\1$/, '$2')]),
  );
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : /\.mdx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function page(file: string, route: string): MarkdownPage {
  const source = readFileSync(file, 'utf8');
  const prose = source.replace(/^(`{3,}|~{3,})[\s\S]*?^\1/gm, '');
  const title = /^# (.+)$/m.exec(prose)?.[1] ?? frontMatter(source).title ?? '';
  return { file: relative(DOCS_SITE, file), route, title, source };
}

/** Every guide under apps/docs/docs with the route Docusaurus gives it. */
export function guidePages(): MarkdownPage[] {
  const root = join(DOCS_SITE, 'docs');
  return walk(root).map((file) => {
    const path = relative(root, file)
      .replace(/\.mdx?$/, '')
      .replace(/(^|\/)index$/, '');
    return page(file, `/docs/${path}`);
  });
}

/** Every Markdown page: the guides and the Markdown pages of src/pages. */
export function markdownPages(): MarkdownPage[] {
  const pagesDir = join(DOCS_SITE, 'src/pages');
  const pages = walk(pagesDir).map((file) =>
    page(
      file,
      `/${relative(pagesDir, file)
        .replace(/\.mdx?$/, '')
        .replace(/(^|\/)index$/, '')}`,
    ),
  );
  return [...guidePages(), ...pages];
}

/** Every route of the site and the h1 it must show: home, API references, Markdown pages, guides. */
export function siteRoutes(): [route: string, heading: string][] {
  return [
    ['/', 'Docs'],
    ...Object.values(API_DOCS).map((d): [string, string] => [d.route, `${d.title} reference`]),
    ['/markdown-page', 'Conventions'],
    ...guidePages().map((p): [string, string] => [p.route, p.title]),
  ];
}
