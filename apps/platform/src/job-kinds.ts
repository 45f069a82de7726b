import type { AnyJobKind } from './jobs/kinds.ts';
import { partnerHttp } from './jobs/partner-http.ts';
import { connectJob, disconnectJob } from './onboarding/connection-jobs.ts';

/**
 * Every job kind the platform runs: the one list handed to the worker. A kind defined but not
 * listed here is never claimed, and a process refuses to start while jobs of it wait
 * (`checkJobKinds`); `job-kinds.test.ts` checks every `defineJobKind` of the code is listed.
 */
export const JOB_KINDS: readonly AnyJobKind[] = [partnerHttp, connectJob, disconnectJob];
