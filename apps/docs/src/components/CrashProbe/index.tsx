import type { ReactNode } from 'react';

declare global {
  interface Window {
    /** Set by the browser tests to prove the crash screen: while true, the home page throws. */
    __DOCS_FORCE_CRASH__?: boolean;
  }
}

/** Renders nothing; throws while the test flag is set, so the page's error boundary shows. */
export default function CrashProbe(): ReactNode {
  if (typeof window !== 'undefined' && window.__DOCS_FORCE_CRASH__) {
    throw new Error('Forced render error (test)');
  }
  return null;
}
