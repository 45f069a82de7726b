import type { AppContext } from '../context.ts';

export interface Worker {
  stop(): Promise<void>;
}

export function startWorker(_ctx: AppContext): Worker {
  return { stop: async () => {} };
}
