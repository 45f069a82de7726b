import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import { z } from 'zod';
import type { EmailMessage } from '@stream/contracts/apis/hr-stores/index';
import type { AppContext } from '../../context.ts';
import type { DbOrTx, Tx } from '../../db/client.ts';
import { newId } from '../../db/ids.ts';
import { storeEmails } from '../../db/schema/index.ts';
import { ApiError } from '../../http/errors.ts';
import { defineDeadlineJobKind, PermanentJobError } from '../../jobs/kinds.ts';
import { enqueue } from '../../jobs/outbox.ts';

/**
 * E-mail on a store's behalf, durable before it is acknowledged: each message is a `store_emails`
 * row and a `stores.email` job written in one transaction; the worker sends it with nodemailer
 * through SMTP_URL (or writes it as a .eml file under MAIL_DIR when there is no SMTP server),
 * retrying with backoff while the server refuses, and records the outcome on the row.
 */
type EmailRow = typeof storeEmails.$inferSelect;

export const emailOutcome = (row: EmailRow) => ({
  id: row.id,
  status: row.status,
  attempts: row.attempts,
  lastError: row.lastError,
  messageId: row.messageId,
  sentAt: row.sentAt?.toISOString() ?? null,
});

/** Stores the messages and their `stores.email` jobs in the caller's (outbox) transaction. */
export async function queueEmails(
  tx: Tx,
  storeId: number,
  partnerId: string,
  messages: readonly EmailMessage[],
): Promise<EmailRow[]> {
  const rows: EmailRow[] = [];
  for (const message of messages) {
    const id = newId('eml');
    const [row] = await tx.insert(storeEmails).values({ id, storeId, partnerId, message }).returning();
    await enqueue(tx, { kind: emailJob, payload: { email_id: id }, dedupeKey: `email:${id}` });
    rows.push(row!);
  }
  return rows;
}

export async function findStoreEmail(
  db: DbOrTx,
  storeId: number,
  partnerId: string,
  id: string,
): Promise<EmailRow> {
  const [row] = await db
    .select()
    .from(storeEmails)
    .where(
      and(eq(storeEmails.id, id), eq(storeEmails.storeId, storeId), eq(storeEmails.partnerId, partnerId)),
    );
  if (!row) throw new ApiError('not_found', `The store has no message ${id} of yours.`);
  return row;
}

const address = (a: { email: string; name?: string | undefined }) =>
  a.name ? { name: a.name, address: a.email } : a.email;

/** The message as nodemailer builds it: recipients, both bodies, attachments (inline ones by cid), tags as headers. */
export function mailOf(id: string, m: EmailMessage): SendMailOptions {
  return {
    from: address(m.fromEmail),
    to: m.toEmails.map(address),
    cc: m.ccEmails.map(address),
    bcc: m.bccEmails.map(address),
    subject: m.subject,
    text: m.contents.find((c) => c.contentType === 'text/plain')?.value,
    html: m.contents.find((c) => c.contentType === 'text/html')?.value,
    attachments: m.attachments.map((a) => ({
      content: a.content,
      encoding: 'base64',
      contentType: a.type,
      filename: a.filename,
      contentDisposition: a.disposition,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
    headers: {
      'X-Stream-Email-Id': id,
      ...(m.tags?.siteId ? { 'X-Stream-Site-Id': m.tags.siteId } : {}),
      ...(m.tags?.emailType ? { 'X-Stream-Email-Type': m.tags.emailType } : {}),
    },
  };
}

const transports = new WeakMap<AppContext, Transporter>();
/** One transport per process: SMTP when configured, else nodemailer's stream transport to a file. */
function transportOf(ctx: AppContext): Transporter {
  let t = transports.get(ctx);
  if (!t) {
    const smtpUrl = ctx.config.mail?.smtpUrl;
    t = smtpUrl
      ? nodemailer.createTransport(smtpUrl)
      : nodemailer.createTransport({ streamTransport: true, buffer: true });
    transports.set(ctx, t);
  }
  return t;
}

export const mailFolder = (ctx: AppContext) => ctx.config.mail?.mailDir ?? join(ctx.config.dataDir, 'mail');

/** A message the server refuses for a while is retried for an hour, however many attempts that takes. */
const EMAIL_DELIVERY = { deadlineMs: 60 * 60_000, backoff: { baseMs: 1_000, maxMs: 10 * 60_000 } };

export const emailJob = defineDeadlineJobKind<{ email_id: string }, { messageId: string }>(EMAIL_DELIVERY, {
  kind: 'stores.email',
  payload: z.object({ email_id: z.string().min(1) }),
  async handle(job, ctx) {
    const [row] = await ctx.db
      .update(storeEmails)
      .set({ attempts: sql`${storeEmails.attempts} + 1` })
      .where(eq(storeEmails.id, job.payload.email_id))
      .returning();
    if (!row || row.status === 'sent') return { messageId: row?.messageId ?? '' };
    try {
      const info = await transportOf(ctx).sendMail(mailOf(row.id, row.message as EmailMessage));
      if (!ctx.config.mail?.smtpUrl) {
        const folder = mailFolder(ctx);
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, `${row.id}.eml`), info.message as Buffer);
      }
      return { messageId: info.messageId };
    } catch (err) {
      await ctx.db
        .update(storeEmails)
        .set({ lastError: (err as Error).message.slice(0, 500) })
        .where(eq(storeEmails.id, row.id));
      // A 5xx is the server's final word (no such mailbox, message refused): only a 4xx, or no answer,
      // is "for a while" and worth the hour of retries.
      const code = (err as { responseCode?: unknown }).responseCode;
      if (typeof code === 'number' && code >= 500 && code < 600)
        throw new PermanentJobError((err as Error).message);
      throw err;
    }
  },
  async onSucceeded(tx, job, result) {
    await tx
      .update(storeEmails)
      .set({ status: 'sent', messageId: result.messageId, sentAt: sql`now()`, lastError: null })
      .where(eq(storeEmails.id, job.payload.email_id));
  },
  async onDead(tx, job) {
    await tx
      .update(storeEmails)
      .set({ status: 'failed', lastError: job.error.slice(0, 500) })
      .where(eq(storeEmails.id, job.payload.email_id));
  },
});
