import type { FastifyInstance } from 'fastify';
import { MenuFile, dspGetMenuFile } from '@stream/contracts/apis/become-a-dsp/index';
import { posGetCatalog, posReceiveEvent } from '@stream/contracts/apis/become-a-pos/index';
import { DEMO_CATALOG } from './catalog.ts';
import { SandboxError, parse, route } from './http.ts';
import type { Sim } from './sim.ts';
import type { PublishedMenu } from './options.ts';
import type { MenuPublishBehavior } from './state.ts';
import { fieldPath } from '@stream/contracts/server/field-path';

/**
 * Catalogs and menus in the simulators: the POS serves its catalog (`DEMO_CATALOG` until a control
 * route replaces it) and keeps the publication outcomes it is told; the DSP downloads each published
 * menu file, checks it against the contract's schema, and serves the last one of each store.
 */

export interface DownloadedMenu {
  location_id: string;
  time: string;
  download_url: string;
  /** Whether the file passed the contract's `MenuFile` schema; `issues` say where it did not. */
  valid: boolean;
  issues: { path: string; message: string }[];
  menu_file: unknown;
}

export class MenuState {
  catalog: unknown = structuredClone(DEMO_CATALOG);
  readonly downloads = new Map<string, DownloadedMenu>();
}
const states = new WeakMap<Sim, MenuState>();
export const menuState = (sim: Sim): MenuState => {
  let state = states.get(sim);
  if (!state) states.set(sim, (state = new MenuState()));
  return state;
};

export function registerPosCatalog(app: FastifyInstance, sim: Sim): void {
  route(app, posGetCatalog, async (req) => {
    sim.authenticate(req);
    return menuState(sim).catalog;
  });
  route(app, posReceiveEvent, async (req) => {
    sim.authenticate(req);
    const { body } = parse(posReceiveEvent, req);
    sim.state.recordEvent({ time: new Date().toISOString(), body: body as Record<string, unknown> });
    return {};
  });
}

export function registerDspMenus(app: FastifyInstance, sim: Sim): void {
  route(app, dspGetMenuFile, async (req) => {
    sim.authenticate(req);
    const { location_id } = parse(dspGetMenuFile, req).query;
    const downloaded = (await recalledMenus(sim)).get(location_id);
    if (!downloaded)
      throw new SandboxError('not_found', `No menu was published to store ${location_id} yet.`);
    return downloaded.menu_file;
  });
}

const REFUSALS: Record<Exclude<MenuPublishBehavior, 'accept'>, [number, string]> = {
  unauthorized: [401, 'The merchant token is not valid for this store.'],
  forbidden: [403, 'This store does not accept menus from you.'],
  throttled: [429, 'Slow down.'],
  internal_error: [500, 'Menu service unavailable.'],
  rejected: [400, 'The menu was rejected.'],
  content_issue: [400, 'MENU_CONTENT_ISSUE: a modifier group is nested too deep.'],
  compliance_issue: [422, 'MENU_COMPLIANCE_ISSUE: alcohol needs an age check.'],
  already_processing: [409, 'A menu is being processed for this store.'],
  teapot: [418, 'I am a teapot.'],
};

/**
 * `location.publish` in the DSP: refused as the `menu_publish` switch says, else the file is
 * downloaded from `download_url` and kept with its schema verdict (a download that fails is a 502,
 * as a DSP that cannot fetch the file would answer).
 */
export async function receivePublish(
  sim: Sim,
  event: { location_id: string; download_url: string },
  reply: { header(name: string, value: string): unknown },
): Promise<void> {
  const behavior = sim.state.switches.menu_publish;
  if (behavior !== 'accept') {
    const [status, message] = REFUSALS[behavior];
    if (status === 429) reply.header('retry-after', '1');
    throw new SandboxError('validation_failed', message, undefined, status);
  }
  let file: unknown;
  try {
    const res = await fetch(event.download_url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    file = await res.json();
  } catch (err) {
    throw new SandboxError(
      'internal_error',
      `Could not download the menu file: ${(err as Error).message}`,
      undefined,
      502,
    );
  }
  keepMenu(sim, {
    location_id: event.location_id,
    download_url: event.download_url,
    time: new Date().toISOString(),
    menu_file: file,
  });
}

/** Keeps a store's menu file with its schema verdict: the one the DSP serves and orders from. */
function keepMenu(sim: Sim, menu: PublishedMenu): void {
  const parsed = MenuFile.safeParse(menu.menu_file);
  menuState(sim).downloads.set(menu.location_id, {
    ...menu,
    valid: parsed.success,
    issues: parsed.success
      ? []
      : parsed.error.issues.map((i) => ({
          path: fieldPath('', i.path as (string | number)[]),
          message: i.message,
        })),
  });
}

/**
 * The menus this DSP serves, with those recorded where it was published to (`publishedMenus`: a
 * mounted DSP reads the platform's database). Read again at every read of its menus, not once: a
 * restarted DSP recalls what was published before it started, and a platform running several
 * processes over one database publishes some menus through another process's simulator, which this
 * one never receives. Per store the newer wins: a recorded menu replaces one this simulator kept only
 * if it was recorded after that one was downloaded. Read when a request asks for the menus, never at
 * registration: a platform on PORT=0 knows its address, which the `download_url`s start with, only
 * once it listens. A failed read fails that request; the next one reads again.
 */
export async function recalledMenus(sim: Sim): Promise<Map<string, DownloadedMenu>> {
  const { downloads } = menuState(sim);
  const { publishedMenus } = sim.opts;
  if (!publishedMenus) return downloads;
  for (const menu of await publishedMenus()) {
    const kept = downloads.get(menu.location_id);
    if (!kept || Date.parse(menu.time) > Date.parse(kept.time)) keepMenu(sim, menu);
  }
  return downloads;
}
