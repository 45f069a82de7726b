/**
 * The approved-partner guide lists the codes a partner's `return_url` page can receive as an
 * `<ErrorCodes>` table typed in the page: this keeps it to the contracts' list of what the platform
 * sends there (`RETURN_URL_ERRORS`), every one and nothing else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RETURN_URL_ERRORS } from '@stream/contracts/apis/partner/onboarding';
import { DOCS_SITE } from './pages.ts';

const guide = readFileSync(
  join(DOCS_SITE, 'docs/white-label-stream/approved-partner-configuration.mdx'),
  'utf8',
);

describe('the return URL section of the approved-partner guide', () => {
  it('lists every error code the platform sends to return_url, and only those', () => {
    const section = guide.slice(guide.indexOf('## Your return URL'));
    const table = /<ErrorCodes\s+codes=\{\[([^\]]*)\]\}/.exec(section);
    expect(table, 'the <ErrorCodes> table of "Your return URL"').not.toBeNull();
    const listed = [...table![1]!.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
    expect([...listed].sort()).toEqual([...RETURN_URL_ERRORS].sort());
    // Each is also told what to do, in the list that follows.
    const advice = section.split('\n').filter((line) => line.startsWith('- `'));
    for (const code of RETURN_URL_ERRORS)
      expect(
        advice.some((line) => line.split(':')[0]!.includes(`\`${code}\``)),
        code,
      ).toBe(true);
  });
});
