import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject } from '../json.ts';

/**
 * A rule's `max_timeout_ms` limits the calls it grants; on a `review` or `deny` rule it would
 * limit nothing (an approved call keeps the tool's own maximum), so it is refused rather than
 * left to look like a limit. The schema bounds its value.
 */
export function checkRuleTimeouts(policy: unknown): ManifestProblem[] {
  if (!isJsonObject(policy) || !Array.isArray(policy.rules)) return [];
  return policy.rules.flatMap((rule, index) => {
    if (!isJsonObject(rule) || rule.max_timeout_ms === undefined || rule.action === 'grant') return [];
    const message = `only limits the calls a "grant" rule grants; this rule says "${String(rule.action)}" (a call a human approved keeps the tool's own maximum): remove it, or put it on the grant rule`;
    return [{ path: `$.policy.rules[${index}].max_timeout_ms`, message }];
  });
}
