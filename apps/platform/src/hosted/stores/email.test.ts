import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { waitFor } from '../../../test/wait.ts';
import { backoffDelay } from '../../jobs/backoff.ts';
import { hostedSuite } from '../testing.ts';
import { emailJob } from './email.ts';

const PDF = Buffer.from('%PDF-1.4 receipt 4711').toString('base64');
const message = (subject: string) => ({
  toEmails: [{ email: 'ana@example.com', name: 'Ana Lima' }],
  ccEmails: [{ email: 'manager@pizza.example' }],
  bccEmails: [{ email: 'audit@pizza.example' }],
  fromEmail: { email: 'orders@pizza.example', name: 'Stream Pizza Chelsea' },
  subject,
  contents: [
    { contentType: 'text/plain', value: 'Thanks for your order!' },
    { contentType: 'text/html', value: '<p>Thanks for your order! <img src="cid:logo@pizza"></p>' },
  ],
  attachments: [
    { content: PDF, type: 'application/pdf', filename: 'receipt.pdf' },
    { content: Buffer.from('PNG').toString('base64'), type: 'image/png', filename: 'logo.png', disposition: 'inline', contentId: 'logo@pizza' },
  ],
  tags: { siteId: 'chelsea', emailType: 'receipt' },
}); // prettier-ignore

describe('POST /Stores/{id}/Email through an SMTP server', () => {
  const received: { mail: ParsedMail; rcpt: string[] }[] = [];
  let flakyArrivals = 0;
  let bouncedArrivals = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const mail = await simpleParser(Buffer.concat(chunks));
        // The first attempt of a "flaky" message is refused with a temporary error; the retry is taken.
        if (mail.subject === 'flaky' && flakyArrivals++ === 0) {
          return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        }
        if (mail.subject === 'bounced') {
          bouncedArrivals++;
          return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        }
        received.push({ mail, rcpt: session.envelope.rcptTo.map((r) => r.address) });
        callback();
      });
    },
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  });
  const suite = hostedSuite(() => ({
    mail: { smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` },
  }));
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  it('stores, answers 202, sends with every recipient, content and attachment, and records the outcome', async () => {
    const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [message('Your receipt')] } });
    expect(res.status, res.text).toBe(202);
    const [queued] = res.body.data;
    expect(queued).toMatchObject({ id: expect.stringMatching(/^eml_/), status: 'queued' });
    const outcome = () => suite.world.hosted('GET', `/Stores/${DEMO_STORE_ID}/Email/${queued.id}`);
    await waitFor(async () => (await outcome()).body.data.status === 'sent');
    expect((await outcome()).body.data).toMatchObject({ status: 'sent', attempts: 1, lastError: null, messageId: expect.any(String) });
    const got = received.find((r) => r.mail.subject === 'Your receipt')!;
    expect(got.rcpt.sort()).toEqual(['ana@example.com', 'audit@pizza.example', 'manager@pizza.example']);
    expect(got.mail.text?.trim()).toBe('Thanks for your order!');
    expect(got.mail.html).toContain('<img'); // mailparser inlines the cid image it was sent
    expect(got.mail.headers.get('x-stream-email-type')).toBe('receipt');
    const pdf = got.mail.attachments.find((a) => a.filename === 'receipt.pdf');
    const logo = got.mail.attachments.find((a) => a.filename === 'logo.png');
    expect([pdf!.filename, pdf!.contentType, pdf!.content.toString()]).toEqual(['receipt.pdf', 'application/pdf', '%PDF-1.4 receipt 4711']);
    expect([logo!.contentDisposition, logo!.cid]).toEqual(['inline', 'logo@pizza']);
  }); // prettier-ignore

  it('retries a message the server refuses for a while, and delivers it once', async () => {
    const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/PostEmail`, { body: { data: [message('flaky')] } });
    expect(res.status).toBe(202);
    expect(res.body.messagesDetails[0]).toMatchObject({ id: 'deprecated', messageType: 'WARNING' });
    expect(res.headers.get('deprecation')).toBe('true');
    const id = res.body.data[0].id;
    await waitFor(async () => (await suite.world.hosted('GET', `/Stores/${DEMO_STORE_ID}/Email/${id}`)).body.data.status === 'sent', 20_000);
    const outcome = (await suite.world.hosted('GET', `/Stores/${DEMO_STORE_ID}/Email/${id}`)).body.data;
    expect(outcome).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(received.filter((r) => r.mail.subject === 'flaky')).toHaveLength(1);
    expect(flakyArrivals).toBe(2); // refused once, taken once
  }, 30_000); // prettier-ignore

  it('gives up at once on a message the server refuses for good (a 5xx), with its answer', async () => {
    // Was retried 10 times over minutes, queued all along, though a 550 will not change.
    const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [message('bounced')] } });
    const outcome = async () => (await suite.world.hosted('GET', `/Stores/${DEMO_STORE_ID}/Email/${res.body.data[0].id}`)).body.data;
    await waitFor(async () => (await outcome()).status === 'failed', 20_000);
    expect(await outcome()).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('550 Mailbox unavailable'), sentAt: null });
    expect(bouncedArrivals).toBe(1);
  }, 30_000); // prettier-ignore

  it('retries a server that refuses for a while until its hour is up, not for a count of attempts', () => {
    // Even with the shortest jittered delays the retries reach the deadline (10 attempts spent 4 to 9 minutes).
    let waited = 0;
    for (let attempt = 1; attempt < emailJob.maxAttempts && waited < emailJob.deadlineMs; attempt++) waited += backoffDelay(emailJob.backoff, attempt, () => 0);
    expect(waited).toBeGreaterThanOrEqual(emailJob.deadlineMs);
  }); // prettier-ignore

  it('refuses bad messages with 400 and stores nothing; another partner sees no outcome', async () => {
    for (const data of [[], [{ ...message('x'), toEmails: [] }], [{ ...message('x'), fromEmail: { email: 'not-an-address' } }], [{ ...message('x'), attachments: [{ content: '***', type: 'a/b', filename: 'f' }] }], [{ ...message('x'), contents: [{ contentType: 'text/rtf', value: 'x' }] }]]) {
      const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data } });
      expect(res.status).toBe(400);
    }
    expect((await suite.world.hosted('GET', `/Stores/${DEMO_STORE_ID}/Email/eml_nothere`)).status).toBe(404);
  }); // prettier-ignore

  it('takes an attachment type that is a MIME type (type/subtype, parameters too), and refuses another, naming it', async () => {
    // Were 202: nodemailer wrote `Content-Type: pdf` (or the type with its line break dropped) and the file arrived broken.
    for (const type of ['pdf', 'application/pdf\r\nX-Evil: 1', 'application/', 'application/pdf; name', ' ', '']) {
      const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [{ ...message('x'), attachments: [{ content: PDF, type, filename: 'r.pdf' }] }] } });
      expect([JSON.stringify(type), res.status, res.body.messagesDetails[1]]).toEqual([JSON.stringify(type), 400, { id: 'body.data[0].attachments[0].type', message: 'must be a MIME type such as application/pdf (type/subtype)', messageType: 'ERROR' }]);
    }
    for (const type of ['application/pdf', 'text/plain; charset=utf-8', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv;charset="utf-8"']) {
      const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [{ ...message('types'), attachments: [{ content: PDF, type, filename: 'r' }] }] } });
      expect([type, res.status]).toEqual([type, 202]);
    }
  }); // prettier-ignore

  it('refuses a field it does not know (a misspelt recipient list) and two contents of one type, naming them', async () => {
    const { ccEmails, ...rest } = message('typo');
    for (const [data, field] of [
      [[{ ...rest, ccEmail: ccEmails }], 'body.data[0]'],
      [[{ ...message('x'), contents: [{ contentType: 'text/plain', value: 'a' }, { contentType: 'text/plain', value: 'b' }] }], 'body.data[0].contents'],
      [[{ ...message('x'), toEmails: [{ email: 'ana@example.com', nmae: 'Ana' }] }], 'body.data[0].toEmails[0]'],
    ] as const) {
      const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data } });
      expect([res.status, res.body.messagesDetails.map((m: { id: string }) => m.id)]).toEqual([400, ['validation_failed', field]]);
    }
    const extra = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [message('x')], dryRun: true } });
    expect(extra.status).toBe(400);
  }); // prettier-ignore

  it('takes an optional field sent as null (no cc, no attachments, no tags) as absent, and still refuses a required one', async () => {
    const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [{ ...message('nulls'), ccEmails: null, bccEmails: null, attachments: null, tags: null, toEmails: [{ email: 'ana@example.com', name: null }] }] } });
    expect(res.status, res.text).toBe(202);
    const noRecipients = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [{ ...message('x'), toEmails: null }] } });
    expect([noRecipients.status, noRecipients.body.messagesDetails[1].id]).toEqual([400, 'body.data[0].toEmails']);
  }); // prettier-ignore

  it('takes a message of more than 1 MiB (the server-wide limit), up to 10 MiB a request', async () => {
    const big = { ...message('Big receipt'), attachments: [{ content: Buffer.alloc(520_000, 7).toString('base64'), type: 'application/pdf', filename: 'menu.pdf' }], contents: [{ contentType: 'text/html', value: 'x'.repeat(400_000) }] };
    const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [big] } });
    expect(res.status, res.text.slice(0, 300)).toBe(202);
    // One large attachment, sent alone as the guide says (was 400: an attachment was capped at 700,000 base64 characters).
    const pdf = Buffer.alloc(3_000_000, 9);
    const large = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [{ ...message('Large menu'), attachments: [{ content: pdf.toString('base64'), type: 'application/pdf', filename: 'menu.pdf' }] }] } });
    expect(large.status, large.text.slice(0, 300)).toBe(202);
    await waitFor(() => received.some((r) => r.mail.subject === 'Large menu'), 20_000);
    expect(received.find((r) => r.mail.subject === 'Large menu')!.mail.attachments[0]!.content.equals(pdf)).toBe(true);
    const tooBig = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: Array.from({ length: 16 }, () => big) } });
    expect([tooBig.status, tooBig.body.messagesDetails[0].id, tooBig.body.message]).toEqual([413, 'payload_too_large', 'The body is larger than the 10485760 byte limit.']);
  }, 30_000); // prettier-ignore
});

describe('POST /Stores/{id}/Email without SMTP_URL', () => {
  const suite = hostedSuite();
  it('writes the message to the mail folder as a .eml file', async () => {
    const res = await suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, { body: { data: [message('To the folder')] } });
    const id = res.body.data[0].id;
    const file = join(suite.platform.config.dataDir, 'mail', `${id}.eml`);
    await waitFor(async () => existsSync(file));
    const mail = await simpleParser(readFileSync(file));
    expect([mail.subject, mail.attachments.length]).toEqual(['To the folder', 2]);
  }); // prettier-ignore
});
