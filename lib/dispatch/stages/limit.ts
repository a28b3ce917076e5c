import { LimitContendedError } from '../../limits/record-cas.ts';
import type { HeldLimit, Limiter } from '../../limits/limiter.ts';
import type { LimitKind } from '../../limits/limit.ts';
import { describeLimit, refusalDetails, retryAfterSeconds } from '../../limits/messages.ts';
import type { CallNaming } from '../call-naming.ts';
import type { CallerContext } from '../context.ts';
import { fail, pass, type StageResult } from './stage.ts';

/**
 * Counts the call against the tenant's limits, just before it runs (after the idempotency claim:
 * a replayed, in-progress or conflicting call never reaches it, so a retry counts once). Over a
 * limit: `rate_limited`, with when to retry, and nothing runs. A store that cannot count fails
 * the call closed (`unavailable`): a limit the gateway cannot check is not a limit it may skip.
 * `only: 'window'`: a parked call counts its window limits when it is parked (a concurrency
 * cap limits what runs at once, and nothing runs yet). `only: 'concurrency'`: an approved
 * call takes its concurrency leases when it runs (its window limits counted when it was parked).
 */
export async function limitStage(limiter: Limiter, caller: Pick<CallerContext, 'tenant' | 'principal'>, tool: string, leaseMs: number, now: number, naming: CallNaming, only?: LimitKind['type']): Promise<StageResult<HeldLimit[]>> {
  let verdict;
  try {
    verdict = await limiter.takeForCall(caller, tool, leaseMs, only);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    const busy = error instanceof LimitContendedError;
    return fail({
      code: busy ? 'rate_limited' : 'unavailable',
      message: busy
        ? `Tool ${naming.tool} was not run: its rate limit is being checked by many calls at once. Nothing was executed; retry in a second.`
        : `Tool ${naming.tool} was not run: its rate limits cannot be checked (${cause}). Nothing was executed; retry later.`,
      details: busy ? { retry_after_seconds: 1 } : { cause },
    });
  }
  if (verdict.ok) return pass(verdict.held);
  const details = refusalDetails(verdict, now);
  const why = verdict.limit.description ? ` (${naming.inText(verdict.limit.description)})` : '';
  return fail({
    code: 'rate_limited',
    message: `Tool ${naming.tool} was not run: this tenant allows ${describeLimit(verdict.limit)}${why}, and that is used up. Nothing was executed. Retry after ${String(details.retry_at)} (in ${retryAfterSeconds(verdict)} s), or continue without this call.`,
    details,
  });
}
