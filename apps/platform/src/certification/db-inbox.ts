import { setTimeout as sleep } from 'node:timers/promises';
import { and, asc, eq, gte, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { newId } from '../db/ids.ts';
import { certificationFiles, certificationWebhooks } from '../db/schema/index.ts';
import { callbackUrl } from '../onboarding/integrations.ts';
import { parseJsonBody } from '@stream/contracts/server/input';
import { parseJson } from '../connectors/index.ts';
import type { Inbox, ReceivedWebhook } from './inbox.ts';

/**
 * The inbox of a run the platform makes: the partner's webhooks land on
 * `POST /certification/runs/{run_id}/webhooks` (any process of the platform) and are rows, which
 * the run reads back, a refused one with why (`refused`); menu files are rows served by
 * `GET .../menu-files/{file_id}`, counting downloads.
 */

const POLL_MS = 200;

export function dbInbox(ctx: AppContext, runId: string): Inbox {
  const base = `${ctx.config.publicUrl}/certification/runs/${runId}`;
  const { db } = ctx;
  return {
    webhookUrl: `${base}/webhooks`,
    // The partner registered the platform's callback; the run reads the redirect and never follows it.
    redirectUri: callbackUrl(ctx),
    redirectHelp:
      "it is the platform's OAuth callback: register it with the OAuth client you issued the platform",
    async next(match, since, waitMs) {
      const deadline = Date.now() + waitMs;
      let after = 0;
      for (;;) {
        const rows = await db
          .select()
          .from(certificationWebhooks)
          .where(
            and(
              eq(certificationWebhooks.runId, runId),
              gte(certificationWebhooks.receivedAt, new Date(since)),
              sql`${certificationWebhooks.id} > ${after}`,
            ),
          )
          .orderBy(asc(certificationWebhooks.id));
        for (const row of rows) {
          after = row.id;
          const received: ReceivedWebhook = {
            at: row.receivedAt.getTime(),
            path: row.path,
            raw: row.raw,
            // As the platform reads it: an accepted body with the platform's parser (`__proto__` keys
            // dropped, as production drops them), a refused one as far as it reads (`readWebhookBody`).
            body: row.refused ? parseJson(row.raw) : parseJsonBody(Buffer.from(row.raw)),
            signature: row.signature as ReceivedWebhook['signature'],
            ...(row.refused ? { refused: row.refused } : {}),
          };
          if (match(received)) return received;
        }
        if (Date.now() >= deadline) return undefined;
        await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      }
    },
    async serveFile(body) {
      const id = newId('cmf');
      await db.insert(certificationFiles).values({ id, runId, body });
      return {
        url: `${base}/menu-files/${id}`,
        downloads: async () => {
          const [row] = await db
            .select({ downloads: certificationFiles.downloads })
            .from(certificationFiles)
            .where(eq(certificationFiles.id, id));
          return row?.downloads ?? 0;
        },
      };
    },
    async close() {},
  };
}
