import { rotateSigningKey } from '../auth/keys.ts';
import type { Scope } from '@stream/contracts/common';
import type { Database } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import type { LocationEventProvider } from '@stream/contracts/apis/partner/event-providers';
import {
  locationProviders,
  providerCircuits,
  setProvider,
  type ProviderCircuit,
} from '../events/subscriptions.ts';
import { publishForOperator, setMenuSettings, type MenuSettings } from '../menus/settings.ts';
import { orderToWire, timelineOf } from '../orders/read.ts';
import { findOrder } from '../orders/records.ts';
import { ApiError } from '../http/errors.ts';
import { grantCompany, importCompany, type ImportSummary } from '../hosted/companies.ts';
import { moveByOperator } from '../hosted/orders/records.ts';
import { toCreatePartnerInput, type CreatePartnerRequest } from '../partners/input.ts';
import { SANDBOX_PARTNERS, sandboxCredentials } from '../sandbox-bootstrap.ts';
import {
  createPartner,
  findPartner,
  listPartners,
  PartnerExistsError,
  PartnerNotFoundError,
  rotateSecret,
  goLive,
  setRootScopes,
  PartnerNotCertifiedError,
  type PartnerCredentials,
  type PartnerSummary,
  type RotatedSecrets,
  type SecretKind,
} from '../partners/service.ts';

/**
 * The operator's commands, one interface with two implementations: `directCommands` over an open
 * database (the CLI with no server on the folder, and the admin endpoint itself), and the CLI's
 * HTTP client of the admin endpoint (`cli/backend.ts`). Both run the same code on the database,
 * so a command behaves the same whether or not a server is running.
 * Failures are `ApiError`s: `conflict` (slug taken), `unknown_partner`, `validation_failed`.
 */
export interface AdminCommands {
  migrate(): Promise<{ migrated: true; driver: Database['driver'] }>;
  createPartner(req: CreatePartnerRequest): Promise<PartnerCredentials>;
  listPartners(): Promise<PartnerSummary[]>;
  rotateSecret(idOrSlug: string, which: readonly SecretKind[]): Promise<RotatedSecrets>;
  /** Moves a certified partner from sandbox to live (`conflict` when it has no passed run). */
  goLive(idOrSlug: string): Promise<Awaited<ReturnType<typeof goLive>>>;
  /** Sets the Partner API scopes of a partner's root client (hosted ones kept); answers them. */
  setRootScopes(
    idOrSlug: string,
    scopes: readonly Scope[],
  ): Promise<Awaited<ReturnType<typeof setRootScopes>>>;
  /** New tokens are signed with the new key; the retired ones keep verifying until their tokens expire. */
  rotateSigningKey(): Promise<{ kid: string; retired: string[] }>;
  /** An order and its timeline, as its partners see them (`order_not_found` when there is none). */
  showOrder(orderId: string): Promise<{ order: unknown; timeline: unknown }>;
  /** The event providers of an org location, enabled or not, each with its delivery state. */
  eventProviders(locationId: string): Promise<LocationEventProvider[]>;
  /** Enables or disables an event provider (slug or id) for an org location. */
  setEventProvider(locationId: string, provider: string, enabled: boolean): Promise<LocationEventProvider>;
  /** Every event provider and its circuit (are its deliveries paused?). */
  eventCircuits(): Promise<ProviderCircuit[]>;
  /** Sets how a DSP takes its menus (v2 flag, nesting, price platform); answers the settings in force. */
  setMenuSettings(partner: string, patch: MenuSettings): Promise<unknown>;
  /** Pulls a location's catalog and publishes its menus to every bound store (through the outbox). */
  publishMenus(locationId: string): Promise<{ queued: true }>;
  /** Creates or updates a company, its stores and their menus from a company file (hosted APIs). */
  importCompany(file: unknown): Promise<ImportSummary>;
  /** Lets a partner (id or slug) call the hosted APIs for a company's stores. */
  grantCompany(
    companyId: number,
    partner: string,
  ): Promise<{ company_id: number; partner_id: string; scopes: string[] }>;
  /** Moves a hosted order as its store would (ready, delivery statuses, completed): the Order API's machine. */
  moveHostedOrder(orderId: number, status: string): Promise<unknown>;
}

export function directCommands(database: Database, encryptionKey: Buffer): AdminCommands {
  const { db } = database;
  return {
    async migrate() {
      await migrate(database);
      return { migrated: true, driver: database.driver };
    },
    async createPartner(req) {
      try {
        return await createPartner(db, encryptionKey, toCreatePartnerInput(req));
      } catch (err) {
        if (err instanceof PartnerExistsError) throw new ApiError('conflict', err.message);
        throw err;
      }
    },
    async listPartners() {
      const list = await listPartners(db);
      // The start-up banner promises that `partners list` shows the sandbox partners' secrets again.
      for (const summary of list) {
        if (!SANDBOX_PARTNERS.some((s) => s.slug === summary.slug)) continue;
        const partner = await findPartner(db, summary.id);
        const sandbox = partner && (await sandboxCredentials(db, encryptionKey, partner));
        if (sandbox) {
          const { client_secret, webhook_secret, oauth_client_secret } = sandbox;
          summary.sandbox_credentials = { client_secret, webhook_secret, oauth_client_secret };
        }
      }
      return list;
    },
    async rotateSecret(idOrSlug, which) {
      try {
        return await rotateSecret(db, encryptionKey, idOrSlug, which);
      } catch (err) {
        if (err instanceof PartnerNotFoundError) throw new ApiError('unknown_partner', err.message);
        throw err;
      }
    },
    async goLive(idOrSlug) {
      try {
        return await goLive(db, idOrSlug);
      } catch (err) {
        if (err instanceof PartnerNotFoundError) throw new ApiError('unknown_partner', err.message);
        if (err instanceof PartnerNotCertifiedError) throw new ApiError('conflict', err.message);
        throw err;
      }
    },
    async setRootScopes(idOrSlug, scopes) {
      try {
        return await setRootScopes(db, idOrSlug, scopes);
      } catch (err) {
        if (err instanceof PartnerNotFoundError) throw new ApiError('unknown_partner', err.message);
        throw err;
      }
    },
    rotateSigningKey: () => rotateSigningKey(db, encryptionKey),
    async showOrder(orderId) {
      const order = await findOrder(db, orderId);
      if (!order) throw new ApiError('order_not_found', `No order ${orderId}.`);
      return { order: orderToWire(order), timeline: (await timelineOf(db, order.id)).entries };
    },
    eventProviders: (locationId) => locationProviders(db, locationId),
    async setEventProvider(locationId, provider, enabled) {
      await locationProviders(db, locationId); // 404 for an unknown location
      return setProvider(db, locationId, provider, enabled);
    },
    eventCircuits: () => providerCircuits(db),
    setMenuSettings: (partner, patch) => setMenuSettings(db, partner, patch),
    publishMenus: (locationId) => publishForOperator(db, locationId),
    importCompany: (file) => importCompany(db, encryptionKey, file),
    grantCompany: (companyId, partner) => grantCompany(db, companyId, partner),
    moveHostedOrder: (orderId, status) => moveByOperator(db, orderId, status),
  };
}
