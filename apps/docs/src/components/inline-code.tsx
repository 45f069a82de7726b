import type { ReactNode } from 'react';

/** Text with `code` spans, as the contracts' descriptions are written. */
export function withCode(text: string): ReactNode[] {
  return text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));
}
