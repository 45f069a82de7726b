import type { ReactNode } from 'react';

/**
 * Client half of redocusaurus' server-rendered Redoc styles (see plugins/offline-bundle.ts). The
 * server renders the light and dark CSS into this div; the theme's client version renders it empty,
 * which React 19 reports as a hydration mismatch. `dangerouslySetInnerHTML` that never changes
 * keeps the server's content as it is and is not compared while hydrating.
 */
export function ServerStyles(_props: unknown): ReactNode {
  return (
    <div className="redocusaurus-styles" suppressHydrationWarning dangerouslySetInnerHTML={{ __html: '' }} />
  );
}
