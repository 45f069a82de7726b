/**
 * Post-render fixes of Redoc's markup (redoc 2.x has no options for them), so the API references pass
 * axe-core's WCAG 2.0/2.1 A and AA rules (apps/docs/test/a11y.test.ts):
 * - its pickers (`select.dropdown-select`) have no label: each is named after what it picks, a content
 *   type (its options are media types) or an example;
 * - its side menu is a `ul` of `li role="menuitem"`: the list gets the `menu` role its items need;
 * - a code sample or block that scrolls sideways (when wider than its panel) is out of a keyboard's
 *   reach: it joins the tab order (each element is checked once, when it is first seen).
 * Redoc renders parts later (an expanded menu group, another sample tab), so the fixes run again on
 * every change under `root` until the returned function stops them.
 */
export function makeRedocAccessible(root: HTMLElement): () => void {
  // The scroll check reads computed styles, so each element has it once: a change checks new ones only.
  const checked = new WeakSet<Element>();
  const fix = (): void => {
    for (const select of root.querySelectorAll<HTMLSelectElement>('select:not([aria-label])')) {
      const mediaTypes = [...select.options].every((o) => /^[\w.+-]+\/[\w.+-]+/.test(o.value));
      select.setAttribute('aria-label', mediaTypes ? 'Content type' : 'Example');
    }
    for (const item of root.querySelectorAll('ul:not([role]) > li[role="menuitem"]')) {
      item.parentElement!.setAttribute('role', 'menu');
    }
    for (const el of root.querySelectorAll<HTMLElement>(
      '[role="tabpanel"] div:not([tabindex]), pre:not([tabindex])',
    )) {
      if (checked.has(el)) continue;
      checked.add(el);
      const { overflowX } = getComputedStyle(el);
      if (overflowX === 'auto' || overflowX === 'scroll') el.tabIndex = 0;
    }
  };
  fix();
  const observer = new MutationObserver(fix);
  observer.observe(root, { childList: true, subtree: true });
  return () => observer.disconnect();
}
