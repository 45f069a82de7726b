import { setTimeout as delay } from 'node:timers/promises';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify';
import { registerCertificationTrigger } from './certification.ts';
import { CONTROL_PREFIX, registerControl } from './control.ts';
import { registerDsp } from './dsp.ts';
import { registerEvents } from './events.ts';
import { prepareScope, redact } from './http.ts';
import { resolveOptions, type SandboxKind, type SandboxOptions } from './options.ts';
import { registerPos } from './pos.ts';
import { Sim } from './sim.ts';
import { SandboxState } from './state.ts';

export * from './options.ts';
export type {
  Switches,
  SwitchesPatch,
  ReceivedRequest,
  Connection,
  HeldOrder,
  OrderBehavior,
  ReceivedEvent,
} from './state.ts';
export { ORDER_BEHAVIORS } from './state.ts';
export { TIMEOUT_HOLD_MS } from './orders.ts';
export {
  WEBHOOK_PATHS,
  demoDspOrder,
  dspWebhookFrom,
  sendDspWebhook,
  sendSigned,
  sendWebhook,
  type PlatformAnswer,
} from './send.ts';
export {
  sandboxControl,
  type CatalogChange,
  type SandboxControl,
  type SandboxInfo,
} from './control-client.ts';
export { DEMO_CATALOG } from './catalog.ts';
export type { DownloadedMenu } from './menus.ts';

const REGISTER: Record<SandboxKind, (app: FastifyInstance, sim: Sim) => void> = {
  pos: registerPos,
  dsp: registerDsp,
  events: registerEvents,
};

/**
 * A simulated partner as a Fastify plugin: register it at the root (standalone) or under a prefix
 * (the platform mounts it at `/sandbox/<kind>`). Each call makes a simulator with its own state.
 */
export function buildSandbox(kind: SandboxKind, options: SandboxOptions): FastifyPluginAsync {
  const sim = new Sim(kind, resolveOptions(kind, options), new SandboxState(options.receivedLimit ?? 500));
  return async (app) => {
    prepareScope(app);
    const prefix = app.prefix;
    const pathOf = (url: string) => (url.split('?')[0] ?? '').slice(prefix.length) || '/';
    const isControl = (url: string) => pathOf(url).startsWith(CONTROL_PREFIX);

    app.addHook('onRequest', async (req) => {
      if (sim.state.switches.slow_ms > 0 && !isControl(req.url)) await delay(sim.state.switches.slow_ms);
    });
    // onSend, not onResponse: the entry exists before the caller has its answer.
    app.addHook('onSend', async (req, reply, payload) => {
      if (!isControl(req.url)) {
        const notes = sim.notesOf(req);
        sim.state.record({
          time: new Date().toISOString(),
          method: req.method,
          path: pathOf(req.url),
          query: { ...(req.query as Record<string, unknown>) },
          ...redact(req),
          status: reply.statusCode,
          ...(notes ? { notes } : {}),
        });
      }
      return payload;
    });

    registerControl(app, sim);
    REGISTER[kind](app, sim);
    registerCertificationTrigger(app, sim);
  };
}

/** A standalone simulator (what `stream-sandbox <kind>` runs); call `listen` on it. */
export function createSandboxServer(
  kind: SandboxKind,
  options: SandboxOptions,
  server: Pick<FastifyServerOptions, 'logger'> = {},
): FastifyInstance {
  const app = Fastify({ logger: server.logger ?? false, bodyLimit: 1024 * 1024 });
  void app.register(buildSandbox(kind, options));
  return app;
}
