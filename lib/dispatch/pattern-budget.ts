import type { CallFailure } from './call.ts';

/**
 * The failure of a call whose request has spent its pattern budget (lib/patterns/budget.ts):
 * matching arguments against schema and policy patterns took the time one request may block the
 * process, on the request's earlier calls or on this one's own values. The call did not run; the
 * calls before it keep their results.
 */
export function requestPatternBudgetSpent(tool: string, spentBy: 'earlier calls' | 'this call'): CallFailure {
  const message =
    spentBy === 'earlier calls'
      ? `\`${tool}\` was not run: this request used up its time for matching arguments against patterns on its earlier calls. Send this call again in another request, or send fewer or shorter values per request.`
      : `\`${tool}\` was not run: matching its arguments against the schema's and the policy's patterns used up the time this request may spend on patterns. Send shorter values, or this call in a request of its own.`;
  return { code: 'error', message, details: { reason: 'pattern_budget_spent' } };
}

/** A policy decision whose rule patterns could not be matched in bounded time: the call does not run. */
export function rulePatternBudgetSpent(tool: string): CallFailure {
  return {
    code: 'error',
    message: `\`${tool}\` was not run: its arguments are too long or too varied to match against the policy's rule patterns in bounded time. Send shorter values.`,
    details: { reason: 'pattern_budget_spent' },
  };
}
