import type { ReactNode } from 'react';
import SkipToContent from '@theme-original/SkipToContent';
import { SkipToContentFallbackId } from '@docusaurus/theme-common';

/**
 * Docusaurus' skip link focuses `<main>` with a temporary `tabindex` it removes at once; current
 * Chromium then moves focus back to the body (focus fixup), so focus never stays on the content.
 * This wrapper runs after the link's own click handler and focuses `<main>` for good
 * (`tabindex="-1"` keeps it out of the tab order).
 */
function keepFocusOnMain(): void {
  const main =
    document.querySelector<HTMLElement>('main:first-of-type') ??
    document.getElementById(SkipToContentFallbackId);
  if (!main) return;
  main.setAttribute('tabindex', '-1');
  main.focus();
}

export default function SkipToContentWrapper(): ReactNode {
  return (
    <div onClick={keepFocusOnMain}>
      <SkipToContent />
    </div>
  );
}
