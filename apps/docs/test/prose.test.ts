/**
 * MDX makes a line that starts with a component (`<Endpoint …/>`) after a blank line a paragraph of its
 * own, and Prettier puts that blank line before any such line: a sentence wrapped just before an
 * `<Endpoint>` is cut in two paragraphs on the page ("… hear back at" / "POST /… whether …"). Wrap so
 * that a line never starts with a component in the middle of a sentence.
 */
import { describe, expect, it } from 'vitest';
import { markdownPages } from './pages.ts';

/** `file:line` of each component line that continues the sentence of the paragraph before it. */
function cutSentences(file: string, source: string): string[] {
  const lines = source
    .replace(/^(`{3,}|~{3,})[\s\S]*?^\1/gm, (block) => block.replace(/[^\n]/g, ' '))
    .split('\n');
  return lines.flatMap((line, i) => {
    const before = lines[i - 2]?.trimEnd() ?? '';
    const continues =
      /^<[A-Z]\w*\b[^>]*\/>\s*\S/.test(line) &&
      lines[i - 1]?.trim() === '' &&
      before !== '' &&
      !/^(#|\||[-*] |\d+\. |<|import |export )/.test(before) &&
      !/[.:!?>|]$/.test(before);
    return continues ? [`${file}:${i + 1}`] : [];
  });
}

describe('the prose of the guides', () => {
  it('never cuts a sentence in two paragraphs before a component', () => {
    const cut = markdownPages().flatMap((p) => cutSentences(p.file, p.source));
    expect(cut).toEqual([]);
  });
});
