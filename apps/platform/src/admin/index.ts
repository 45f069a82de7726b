import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { newSecret, safeEqual } from '../http/secrets.ts';
import { CreatePartnerRequest, RotateSecretRequest, SetRootScopesRequest } from '../partners/input.ts';
import { MenuSettings } from '../menus/settings.ts';
import { directCommands } from './commands.ts';
import { removeAdminEndpoint, writeAdminEndpoint } from './endpoint-file.ts';

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (what a dual-stack socket reports). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** The loopback URL of a listening address, or undefined when bound to one other interface only. */
function loopbackUrl({ address, port }: AddressInfo): string | undefined {
  if (address === '::1') return `http://[::1]:${port}`;
  if (address === '0.0.0.0' || address === '::' || isLoopback(address)) return `http://127.0.0.1:${port}`;
  return undefined;
}

function authorised(req: FastifyRequest, token: string): boolean {
  const header = req.headers.authorization ?? '';
  // The socket's own address: no forwarded-for header can make a remote caller look local.
  return (
    isLoopback(req.socket.remoteAddress) && header.startsWith('Bearer ') && safeEqual(header.slice(7), token)
  );
}

/**
 * Loopback-only admin endpoint the CLI uses while a server holds the data folder (PGlite allows one
 * process per folder). Once listening, the server writes `<DATA_DIR>/admin.json` (mode 0600) with
 * its loopback URL and a random token made at start; it removes the file on close. Requests not
 * from loopback or without that token get the ordinary 404: the routes are invisible to others.
 */
export function registerAdmin(app: FastifyInstance): void {
  const token = newSecret('adm');
  const commands = () => directCommands(app.ctx.database, app.ctx.config.encryptionKey);

  app.register(async (scope) => {
    const admin = scope.withTypeProvider<ZodTypeProvider>();
    admin.addHook('onRequest', async (req, reply) => {
      if (authorised(req, token)) return;
      reply.callNotFound();
      return reply;
    });
    admin.post('/_admin/migrate', () => commands().migrate());
    admin.get('/_admin/partners', () => commands().listPartners());
    admin.post('/_admin/partners', { schema: { body: CreatePartnerRequest } }, async (req, reply) => {
      reply.status(201);
      return commands().createPartner(req.body);
    });
    admin.post(
      '/_admin/partners/:partner/rotate-secret',
      { schema: { params: z.object({ partner: z.string().min(1).max(200) }), body: RotateSecretRequest } },
      async (req) => commands().rotateSecret(req.params.partner, req.body.which),
    );
    admin.post(
      '/_admin/partners/:partner/scopes',
      {
        schema: { params: z.object({ partner: z.string().min(1).max(200) }), body: SetRootScopesRequest },
      },
      async (req) => commands().setRootScopes(req.params.partner, req.body.scopes),
    );
    admin.post(
      '/_admin/partners/:partner/go-live',
      { schema: { params: z.object({ partner: z.string().min(1).max(200) }) } },
      async (req) => commands().goLive(req.params.partner),
    );
    admin.post('/_admin/keys/rotate', () => commands().rotateSigningKey());
    admin.get(
      '/_admin/orders/:order',
      { schema: { params: z.object({ order: z.string().min(1).max(200) }) } },
      async (req) => commands().showOrder(req.params.order),
    );
    const location = z.object({ location: z.string().min(1).max(200) });
    admin.get('/_admin/event-providers', () => commands().eventCircuits());
    admin.post(
      '/_admin/partners/:partner/menu-settings',
      { schema: { params: z.object({ partner: z.string().min(1).max(200) }), body: MenuSettings } },
      async (req) => commands().setMenuSettings(req.params.partner, req.body),
    );
    admin.post('/_admin/locations/:location/publish-menus', { schema: { params: location } }, async (req) =>
      commands().publishMenus(req.params.location),
    );
    admin.post('/_admin/companies', async (req) => commands().importCompany(req.body));
    admin.put(
      '/_admin/companies/:company/grants/:partner',
      {
        schema: {
          params: z.object({
            company: z.coerce.number().int().min(1).max(2_147_483_647),
            partner: z.string().min(1).max(200),
          }),
        },
      },
      async (req) => commands().grantCompany(req.params.company, req.params.partner),
    );
    admin.post(
      '/_admin/hosted-orders/:order/status/:status',
      {
        schema: {
          params: z.object({
            order: z.coerce.number().int().min(1).max(2_147_483_647),
            status: z.string().min(1).max(50),
          }),
        },
      },
      async (req) => commands().moveHostedOrder(req.params.order, req.params.status),
    );
    admin.get('/_admin/locations/:location/event-providers', { schema: { params: location } }, async (req) =>
      commands().eventProviders(req.params.location),
    );
    const provider = location.extend({ provider: z.string().min(1).max(200) });
    admin.put(
      '/_admin/locations/:location/event-providers/:provider',
      { schema: { params: provider } },
      async (req) => commands().setEventProvider(req.params.location, req.params.provider, true),
    );
    admin.delete(
      '/_admin/locations/:location/event-providers/:provider',
      { schema: { params: provider } },
      async (req) => commands().setEventProvider(req.params.location, req.params.provider, false),
    );
  });

  const { dataDir } = app.ctx.config;
  app.addHook('onListen', function (done) {
    const url = loopbackUrl(app.server.address() as AddressInfo);
    if (!existsSync(dataDir)) {
      // On PostgreSQL DATA_DIR may not exist (ENCRYPTION_KEY given): the CLI then goes to the
      // database directly and needs no admin.json. PGlite always has its folder by now.
      app.log.debug({ dataDir }, 'no DATA_DIR folder: admin.json not written');
    } else if (url) {
      writeAdminEndpoint(dataDir, { url, token, pid: process.pid });
    } else {
      app.log.warn(
        'listening on a non-loopback address only: the CLI cannot reach this server (no admin.json)',
      );
    }
    done();
  });
  app.addHook('onClose', function (_instance, done) {
    removeAdminEndpoint(dataDir, token);
    done();
  });
}
