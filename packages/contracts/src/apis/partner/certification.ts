import { z } from 'zod';
import { CERTIFICATION_KINDS, CertificationReport, CertificationTrigger } from '../../certification.ts';
import { defineOperation } from '../../operation.ts';
import { DspWebhookAnswer } from '../become-a-dsp/orders.ts';
import { ProviderDeliveryAnswer } from '../integrate-with-events/webhook.ts';
import { BEARER_ERRORS, BODY_ERRORS, EXAMPLE, Id } from './shared.ts';

/**
 * Self-serve certification through the Partner API: the platform runs the certification kit against
 * the base URL it has on file for the calling partner, as a job, and keeps the report.
 */

const GUIDE = '/docs/become-a-stream-integration/certification';

export const CertificationRun = z
  .object({
    _id: z.string().meta({ description: 'The run (`crt_…`).' }),
    kind: z.enum(CERTIFICATION_KINDS),
    status: z.enum(['queued', 'running', 'passed', 'failed']).meta({
      description:
        '`queued`, then `running` while checks run; `passed` when every required check passed, else `failed`.',
    }),
    base_url: z.string().meta({ description: 'Your implementation, as registered with the platform.' }),
    progress: z.object({
      done: z.number().int(),
      total: z.number().int(),
      current_check: z
        .string()
        .nullable()
        .meta({ description: 'The id of the check running now; null when none is.' }),
      waiting_for: CertificationTrigger.extend({
        until: z.iso.datetime().meta({ description: 'When the check stops waiting and fails.' }),
        instruction: z.string().meta({ description: 'The same, as a sentence.' }),
      })
        .nullable()
        .meta({
          description:
            'The webhook the run waits for you to send by hand now (your build has no certification trigger): its `type`, where to post it, the location and order it is about. Null otherwise.',
        }),
    }),
    report: CertificationReport.nullable().meta({
      description: 'Every check so far; null before the first.',
    }),
    created_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'CertificationRun', description: 'A certification run and its report.' });
export type CertificationRun = z.infer<typeof CertificationRun>;

const runId = z.object({ run_id: Id.meta({ description: 'The run (`crt_…`).' }) });
const exampleRun: CertificationRun = {
  _id: 'crt_3b8e1c5a7d9f2e4a6c8b0d1f',
  kind: 'pos',
  status: 'running',
  base_url: 'https://pos.example.com',
  progress: { done: 1, total: 20, current_check: 'pos.oauth.bad-code', waiting_for: null },
  report: {
    kind: 'pos',
    base_url: 'https://pos.example.com',
    started_at: EXAMPLE.createdAt,
    finished_at: null,
    passed: false,
    summary: { passed: 1, failed: 0, skipped: 0, total: 1 },
    checks: [
      {
        id: 'pos.oauth.authorize',
        title: 'Authorize redirects back with a code and the state',
        required: true,
        status: 'passed',
        guide:
          '/docs/become-a-stream-integration/integrate-with-stream-as-a-pos/integration-steps/merchant-onboarding',
        exchanges: [
          {
            direction: 'sent',
            method: 'GET',
            url: 'https://pos.example.com/stream-pos/v1/authorize?client_id=stream-platform&response_type=code&redirect_uri=…',
            status: 302,
            duration_ms: 41,
          },
        ],
        duration_ms: 43,
      },
    ],
  },
  created_at: EXAMPLE.createdAt,
  finished_at: null,
};

export const startCertificationRun = defineOperation({
  api: 'partner',
  operationId: 'startCertificationRun',
  method: 'POST',
  path: '/certification/runs',
  summary: 'Start a certification run',
  description: `Runs the certification kit against your implementation at the base URL the platform has for you,
with the OAuth client and webhook secret it holds, as \`stream-platform certify\` does on your machine. Answers at
once; read the progress with \`GET /certification/runs/{run_id}\`. Your webhooks go to
\`/certification/runs/{run_id}/webhooks\` (the trigger names it), signed as you sign them for the platform.
A passed run is recorded on your account: it is what the operator moves you from sandbox to live with.
One run at a time.`,
  tags: ['Certification'],
  tagDescriptions: { Certification: 'Certify your POS, DSP or event-provider implementation yourself.' },
  security: { kind: 'bearer', scopes: [] },
  servedBy: 'platform',
  externalDocs: { url: GUIDE, description: 'What is checked, and how to read the report' },
  request: {
    body: z
      .object({
        // No default here: the run must see whether it was sent, to refuse it for a POS or events run.
        menu_form: z.enum(['v1', 'v2']).optional().meta({
          description:
            'DSP runs only: `v2` checks the v2 menu file as well as v1 (default `v1`). A POS or event provider that sends it is refused (400 `validation_failed`): it has no menu file to check.',
        }),
      })
      // A misspelt field would run the defaults silently (a DSP believing v2 was certified).
      .strict()
      .nullish()
      .meta({ id: 'StartCertificationRun', description: 'Optional: no body is the defaults.' }),
    example: { menu_form: 'v1' },
  },
  responses: {
    202: {
      description: 'The run is queued.',
      schema: z.object({ run: CertificationRun }),
      example: {
        run: {
          ...exampleRun,
          status: 'queued',
          progress: { done: 0, total: 20, current_check: null, waiting_for: null },
          report: null,
        },
      },
    },
  },
  errors: [
    ...BODY_ERRORS,
    ...BEARER_ERRORS,
    'org_limited_token',
    'certification_in_progress',
    'partner_not_certifiable',
  ],
});

export const getCertificationRun = defineOperation({
  api: 'partner',
  operationId: 'getCertificationRun',
  method: 'GET',
  path: '/certification/runs/{run_id}',
  summary: 'Get a certification run',
  description:
    'The run as it stands: its status, how many checks have run, and the report so far, check by check.',
  tags: ['Certification'],
  security: { kind: 'bearer', scopes: [] },
  servedBy: 'platform',
  externalDocs: { url: GUIDE },
  request: { params: runId, example: { run_id: exampleRun._id } },
  responses: {
    200: {
      description: 'The run.',
      schema: z.object({ run: CertificationRun }),
      example: { run: exampleRun },
    },
  },
  errors: ['validation_failed', ...BEARER_ERRORS, 'certification_run_not_found'],
});

export const receiveCertificationWebhook = defineOperation({
  api: 'partner',
  operationId: 'receiveCertificationWebhook',
  method: 'POST',
  path: '/certification/runs/{run_id}/webhooks',
  summary: "A run's webhook inbox",
  description: `Where a running certification takes the webhooks you are asked to send (the \`webhook_url\` of the
certification trigger). Sign them with \`Stream-Webhook-Signature\`, as for the platform, and send them as
\`application/json\`. Each is kept with its signature verdict, and one the platform would refuse with why, for the
check that waits for it (its fix says so); it is answered as the platform would: 415 for another Content-Type,
413 for a body over the platform's body limit (kept as by how many bytes, not its bytes), 400 for a body that is
empty or not JSON, 401 for a bad signature, 400 \`validation_failed\` naming the field for a body the platform's
webhook route of the run's kind does not take. A webhook it takes is answered as that route answers it, status
and body: a POS's 204 with no body (\`POST /pos/{partner_slug}/webhook\`); a DSP's \`new_order\` 202, its other
webhooks 200, with the \`DspWebhookAnswer\` of \`POST /order/{partner_id}\` (the order \`received\`, then
\`accepted\`, or \`dsp_canceled\` once cancelled); an event provider's 200 with the \`ProviderDeliveryAnswer\` of
\`POST /event-provider/{partner_slug}/webhook\` (the stage sent, the driver last assigned). The inbox holds no
orders: the ids it answers (\`evt_…\`, and a DSP order's \`ord_…\`, the same for every webhook naming it) are the
run's own.`,
  tags: ['Certification'],
  // Signed with the webhook secret of the run's partner; the inbox checks it after keeping the webhook.
  security: { kind: 'webhook-signature', checkedBy: 'handler' },
  servedBy: 'platform',
  request: {
    params: runId,
    body: z.unknown(),
    example: {
      type: 'order.status.updated',
      object: { status: 'ready_for_pickup', provider_id: 'pos-ord-1', location_id: 'loc-mission' },
    },
  },
  responses: {
    200: {
      description:
        "Kept: an event provider's webhook, or a DSP's other than `new_order`, answered as the platform answers it.",
      schema: z.union([ProviderDeliveryAnswer, DspWebhookAnswer]),
      example: {
        event_id: 'evt_0c2e4a6c8e0a2c4e6a8c0e2a',
        order_id: 'ord_cert5d7f9b1c3e5a7c9e1b3d',
        delivery_status: 'driver_assigned',
        driver: { name: 'Dana Cruz', phone: { number: '+14155550199', code: '1234' } },
      },
    },
    202: {
      description: "Kept: a DSP's `new_order`, answered as the platform answers it.",
      schema: DspWebhookAnswer,
      example: {
        event_id: 'evt_1a2b3c4d5e6f7a8b9c0d1e2f',
        order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
        status: 'received',
      },
    },
    204: { description: "Kept: a POS's webhook, answered as the platform answers it (no body)." },
  },
  errors: [
    'unsupported_media_type',
    'payload_too_large',
    'invalid_json',
    'validation_failed',
    'signature_missing',
    'signature_malformed',
    'signature_mismatch',
    'certification_run_not_found',
  ],
});

export const downloadCertificationMenuFile = defineOperation({
  api: 'partner',
  operationId: 'downloadCertificationMenuFile',
  method: 'GET',
  path: '/certification/runs/{run_id}/menu-files/{file_id}',
  summary: 'A menu file of a run',
  description:
    'The `download_url` of the `location.publish` event a DSP run sends. Each download is counted.',
  tags: ['Certification'],
  security: { kind: 'none' },
  servedBy: 'platform',
  request: {
    params: runId.extend({ file_id: Id }),
    example: { run_id: exampleRun._id, file_id: 'cmf_9d1e3f5a7b2c4d6e8f0a1b3c' },
  },
  responses: {
    200: {
      description: 'The menu file.',
      schema: z.unknown(),
      example: { prep_time_minutes: 20, taxes: [], holidays: [], menus: [] },
    },
  },
  errors: ['validation_failed', 'certification_run_not_found'],
});

export const CERTIFICATION_OPERATIONS = [
  startCertificationRun,
  getCertificationRun,
  receiveCertificationWebhook,
  downloadCertificationMenuFile,
] as const;
