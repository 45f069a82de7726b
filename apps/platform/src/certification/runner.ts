import type {
  CertificationCheck,
  CertificationKind,
  CertificationReport,
} from '@stream/contracts/certification';
import { CheckFailure, CheckRun, Skip, type Check, type RunContext } from './check.ts';
import { dspChecks } from './dsp-checks.ts';
import { eventsChecks } from './events-checks.ts';
import { posChecks } from './pos-checks.ts';

/**
 * Runs every check of a kind, in order, against the partner's implementation, and reports each:
 * what was sent, what came back, passed, failed (with what to fix) or skipped (with why).
 * A run never throws for anything the partner does; a check that crashes is a failure saying so.
 */

export function checksFor(kind: CertificationKind, opts: { menuV2?: boolean } = {}): Check[] {
  if (kind === 'pos') return posChecks();
  if (kind === 'dsp') return dspChecks(opts);
  return eventsChecks();
}

const NO_MENU = { pos: 'a POS', events: 'an event provider' } as const;

/**
 * Why a run of `kind` cannot take a menu form (only a DSP's menu files are checked), as a clause the
 * Partner API and the CLI both prefix with the field or flag; undefined for a DSP.
 */
export function menuFormProblem(kind: CertificationKind): string | undefined {
  if (kind === 'dsp') return undefined;
  return `applies only to DSP runs; ${NO_MENU[kind]} has no menu file to check: leave it out`;
}

/**
 * Why a run of `kind` cannot take the OAuth client or a merchant token (an event provider has no
 * OAuth: the kit would not use them), as a clause the CLI prefixes with the flag; undefined otherwise.
 */
export function oauthProblem(kind: CertificationKind): string | undefined {
  if (kind !== 'events') return undefined;
  return 'applies only to POS and DSP runs; an event provider has no OAuth to check: leave it out';
}

export type RunOptions = Omit<RunContext, 'state'> & {
  /** A merchant access token to use instead of the OAuth flow (whose checks are then skipped). */
  token?: string;
  /** Told each check as it starts and as it ends. */
  onProgress?(
    check: CertificationCheck | { id: string; title: string; status: 'running' },
  ): void | Promise<void>;
  /** Stop between checks (a run the platform makes, told to stop). */
  signal?: AbortSignal;
};

async function runOne(check: Check, ctx: RunContext): Promise<CertificationCheck> {
  const t = new CheckRun(ctx);
  const started = performance.now();
  let status: CertificationCheck['status'] = 'passed';
  let fix: string | undefined;
  try {
    await check.run(t);
  } catch (err) {
    if (err instanceof Skip) {
      status = 'skipped';
      fix = `Skipped: ${err.message}.`;
    } else {
      status = 'failed';
      fix =
        err instanceof CheckFailure ? err.message : `The check could not finish: ${(err as Error).message}`;
    }
  }
  return {
    id: check.id,
    title: check.title,
    required: check.required !== false,
    status,
    ...(fix ? { fix } : {}),
    ...(t.notes.length ? { notes: t.notes } : {}),
    guide: check.guide,
    exchanges: t.exchanges,
    duration_ms: Math.round(performance.now() - started),
  };
}

export function summarise(
  base: Pick<CertificationReport, 'kind' | 'base_url' | 'started_at'>,
  checks: CertificationCheck[],
  finished: boolean,
): CertificationReport {
  const count = (s: CertificationCheck['status']) => checks.filter((c) => c.status === s).length;
  const blocking = checks.filter((c) => c.required && c.status !== 'passed');
  return {
    ...base,
    finished_at: finished ? new Date().toISOString() : null,
    passed: finished && blocking.length === 0,
    summary: {
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      total: checks.length,
    },
    checks,
  };
}

export async function runCertification(opts: RunOptions): Promise<CertificationReport> {
  const { onProgress, signal, token, ...rest } = opts;
  const ctx: RunContext = { ...rest, state: token ? { accessToken: token } : {} };
  const base = { kind: opts.kind, base_url: opts.baseUrl, started_at: new Date().toISOString() };
  const results: CertificationCheck[] = [];
  for (const check of checksFor(opts.kind, { menuV2: opts.menuV2 })) {
    if (signal?.aborted) break;
    await onProgress?.({ id: check.id, title: check.title, status: 'running' });
    const result = await runOne(check, ctx);
    results.push(result);
    await onProgress?.(result);
  }
  return summarise(base, results, !signal?.aborted);
}
