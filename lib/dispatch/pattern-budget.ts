import type { CallFailure } from './call.ts';
import type { CallNaming } from './call-naming.ts';

/**
 * The failure of a call whose request has spent its pattern budget (lib/patterns/budget.ts):
 * matching arguments against schema and policy patterns took the time one request may block the
 * process, on the request's earlier calls or on this one's own values. The call did not run; the
 * calls before it keep their results.
 */
export function requestPatternBudgetSpent(naming: CallNaming, spentBy: 'earlier calls' | 'this call'): CallFailure {
  const message =
    spentBy === 'earlier calls'
      ? `${naming.tool} was not run: this request used up its time for matching arguments against patterns on its earlier calls. Send this call again in another request, or send fewer or shorter values per request.`
      : `${naming.tool} was not run: matching its ${naming.input} against the schema's and the policy's patterns used up the time this request may spend on patterns. Send shorter values, or this call in a request of its own.`;
  return { code: 'error', message, details: { reason: 'pattern_budget_spent' } };
}

/** A policy decision whose rule patterns could not be matched in bounded time: the call does not run. */
export function rulePatternBudgetSpent(naming: CallNaming): CallFailure {
  return {
    code: 'error',
    message: `${naming.tool} was not run: its ${naming.input} could not be matched against the policy's rule patterns in bounded time (too long or too varied). Send shorter values.`,
    details: { reason: 'pattern_budget_spent' },
  };
}
