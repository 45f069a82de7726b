import { z } from 'zod';

/**
 * Self-serve certification (`stream-platform certify`, `POST /certification/runs`): the shapes the
 * runner, its reports and a partner's test build share.
 */

export const CERTIFICATION_KINDS = ['pos', 'dsp', 'events'] as const;
export type CertificationKind = (typeof CERTIFICATION_KINDS)[number];

/**
 * The one test helper a partner may build into its sandbox or test build (as Stripe's test clocks
 * or Uber's test stores): "send me a webhook of this type now". The runner posts it, signed with
 * `X-Stream-Signature` like every call it makes (and with the merchant's bearer token where it has
 * one); the partner answers 2xx and posts its signed webhook of `type` to `webhook_url`, exactly as
 * it would post it to the platform. A partner without it (404, 405, 501) is asked on the console to
 * send the webhook by hand while the runner waits.
 */
export const CERTIFICATION_TRIGGER_PATH = '/stream-certification/v1/webhooks';

export const CertificationTrigger = z
  .object({
    type: z.string().min(1).max(100).meta({ description: 'The webhook `type` to send.' }),
    webhook_url: z.url({ protocol: /^https?$/ }).meta({ description: 'Where to post it.' }),
    location_id: z
      .string()
      .max(200)
      .optional()
      .meta({ description: 'Your id of the location (or store) it is about.' }),
    order_id: z.string().max(200).optional().meta({
      description: 'The order it is about: your id of it (POS), or the platform reference (events).',
    }),
    status: z.string().max(100).optional().meta({
      description:
        'The status the webhook must carry, when the kit needs one (`accepted`: confirm the order you took with `async_acceptance`).',
    }),
  })
  .meta({ id: 'CertificationTrigger', description: 'Asks your test build to send one webhook.' });
export type CertificationTrigger = z.infer<typeof CertificationTrigger>;

/**
 * One HTTP exchange of a check, as the report shows it (credentials redacted; a JSON body of up to
 * 16 KiB as it is, a larger one or one that is not JSON cut to its first 4 KiB).
 */
export const CertificationExchange = z
  .object({
    direction: z.enum(['sent', 'received']).meta({
      description: '`sent`: a call the runner made to you; `received`: a request you made to the runner.',
    }),
    method: z.string(),
    url: z.string(),
    request_body: z.unknown().optional(),
    status: z.number().int().nullable().meta({ description: "The answer's status; null when none came." }),
    response_body: z.unknown().optional(),
    error: z.string().optional().meta({ description: 'Why no answer came (timeout, refused connection).' }),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'CertificationExchange' });
export type CertificationExchange = z.infer<typeof CertificationExchange>;

export const CheckStatus = z.enum(['passed', 'failed', 'skipped']);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const CertificationCheck = z
  .object({
    id: z.string().meta({ description: 'Stable id, e.g. `pos.orders.accept`.' }),
    title: z.string(),
    required: z.boolean().meta({ description: 'A run passes only when every required check passes.' }),
    status: CheckStatus,
    fix: z.string().optional().meta({ description: 'What to change, when the check did not pass.' }),
    notes: z.array(z.string()).optional().meta({ description: 'Warnings that do not fail the check.' }),
    guide: z.string().meta({ description: 'The documentation section that explains the check (a path).' }),
    exchanges: z.array(CertificationExchange),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'CertificationCheck' });
export type CertificationCheck = z.infer<typeof CertificationCheck>;

export const CertificationReport = z
  .object({
    kind: z.enum(CERTIFICATION_KINDS),
    base_url: z.string(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    passed: z.boolean().meta({
      description:
        'Every required check passed (a skipped one did not), and the run finished. Optional checks never block.',
    }),
    summary: z.object({
      passed: z.number().int(),
      failed: z.number().int(),
      skipped: z.number().int(),
      total: z.number().int(),
    }),
    checks: z.array(CertificationCheck),
  })
  .meta({ id: 'CertificationReport', description: 'What a certification run found, check by check.' });
export type CertificationReport = z.infer<typeof CertificationReport>;
