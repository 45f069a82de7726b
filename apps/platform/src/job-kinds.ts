import type { AnyJobKind } from './jobs/kinds.ts';
import { eventDelivery } from './events/delivery.ts';
import { menuIngest, menuNotifyPos, menuPublish } from './menus/publish.ts';
import { partnerHttp } from './connectors/partner-http.ts';
import { connectJob, disconnectJob } from './onboarding/connection-jobs.ts';
import { dspCall, posCall, posUpdateCall } from './orders/calls.ts';
import { confirmationTimeout, releaseJob } from './orders/effects.ts';
import { applyQueuedEvent } from './orders/relay.ts';
import { resumeJob } from './orders/store-status.ts';
import { emailJob } from './hosted/stores/email.ts';
import { certificationJob } from './certification/runs.ts';

/**
 * Every job kind the platform runs: the one list handed to the worker. A kind defined but not
 * listed here is never claimed, and a process refuses to start while jobs of it wait
 * (`checkJobKinds`); `job-kinds.test.ts` checks every `defineJobKind` of the code is listed.
 */
export const JOB_KINDS: readonly AnyJobKind[] = [
  partnerHttp,
  connectJob,
  disconnectJob,
  posCall,
  posUpdateCall,
  dspCall,
  releaseJob,
  confirmationTimeout,
  applyQueuedEvent,
  resumeJob,
  eventDelivery,
  menuIngest,
  menuPublish,
  menuNotifyPos,
  emailJob,
  certificationJob,
];
