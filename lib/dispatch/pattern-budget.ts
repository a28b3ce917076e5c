import type { CallFailure } from './call.ts';

/**
 * The failure of a call whose request has spent its pattern budget (lib/patterns/budget.ts):
 * matching the arguments of its earlier calls against schema and policy patterns took the time
 * one request may block the process. The call did not run; sent again in a new request, it will.
 */
export function requestPatternBudgetSpent(tool: string): CallFailure {
  return {
    code: 'error',
    message: `\`${tool}\` was not run: this request used up its time for matching arguments against patterns on its earlier calls. Send this call again in another request, or send fewer or shorter values per request.`,
    details: { reason: 'pattern_budget_spent' },
  };
}

/** A policy decision whose rule patterns could not be matched in bounded time: the call does not run. */
export function rulePatternBudgetSpent(tool: string): CallFailure {
  return {
    code: 'error',
    message: `\`${tool}\` was not run: its arguments are too long or too varied to match against the policy's rule patterns in bounded time. Send shorter values.`,
    details: { reason: 'pattern_budget_spent' },
  };
}
