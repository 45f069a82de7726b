/**
 * Docusaurus shows its red "chunk failed" box (message + Retry) only when a route component fails to
 * load while rendering; when a chunk fails during the first load, the preload before hydration
 * rejects and the page silently stays static. This client module shows the same box then, with a
 * Retry that loads the page again.
 */
import ExecutionEnvironment from '@docusaurus/ExecutionEnvironment';

const BOX_ID = 'chunk-load-error';

/** The inline style of Docusaurus' own Loading error box, so both failures look the same. */
const BOX_STYLE = [
  'text-align: center',
  'color: #fff',
  'background-color: #fa383e',
  'border: 1px solid #fa383e',
  'border-radius: 0.25rem',
  'box-sizing: border-box',
  'padding: 1rem',
  'margin: 5rem 25% 2rem',
  'max-width: 50%',
].join(';');

function isChunkLoadError(reason: unknown): reason is Error {
  return (
    reason instanceof Error &&
    (reason.name === 'ChunkLoadError' || /Loading (CSS )?chunk .* failed/.test(reason.message))
  );
}

function showBox(error: Error): void {
  if (document.getElementById(BOX_ID)) return;
  const box = document.createElement('div');
  box.id = BOX_ID;
  box.setAttribute('role', 'alert');
  box.setAttribute('style', BOX_STYLE);
  const message = document.createElement('p');
  message.textContent = String(error);
  const retry = document.createElement('button');
  retry.type = 'button';
  retry.textContent = 'Retry';
  retry.addEventListener('click', () => window.location.reload());
  const actions = document.createElement('div');
  actions.append(retry);
  box.append(message, actions);
  const main = document.getElementById('__docusaurus_skipToContent_fallback') ?? document.body;
  main.prepend(box);
}

if (ExecutionEnvironment.canUseDOM) {
  window.addEventListener('unhandledrejection', (event) => {
    const hydrated = document.documentElement.dataset.hasHydrated === 'true';
    if (!hydrated && isChunkLoadError(event.reason)) showBox(event.reason);
  });
}

export {};
