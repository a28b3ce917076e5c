import { loadedConditionEngine } from '../../governance/conditions/condition.ts';
import type { ToolExecutor } from '../executor.ts';
import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject, type JsonObject } from '../json.ts';

/** Whether a manifest document has a rule with a condition (its publisher must load the CEL engine first: loadConditionEngine). */
export function hasRuleConditions(manifest: unknown): boolean {
  return isJsonObject(manifest) && isJsonObject(manifest.policy) && Array.isArray(manifest.policy.rules) && manifest.policy.rules.some((rule) => isJsonObject(rule) && rule.condition !== undefined);
}

/**
 * Every rule's `condition` compiles and type-checks against its tool's input schema (a rule for
 * "*" reads the arguments as a map), is a bool, and stays within the cost bounds
 * (conditions/cel-engine.ts). A problem names the condition and the column in it.
 */
export function checkRuleConditions(manifest: JsonObject, builtins: ReadonlyMap<string, ToolExecutor>): ManifestProblem[] {
  if (!hasRuleConditions(manifest)) return [];
  const rules = (manifest.policy as JsonObject).rules as unknown[];
  const engine = loadedConditionEngine();
  return rules.flatMap((rule, index) => {
    if (!isJsonObject(rule) || typeof rule.condition !== 'string') return [];
    const path = `$.policy.rules[${index}].condition`;
    if (!engine) return [{ path, message: 'cannot be checked: the condition engine is not loaded (a gateway bug: publishing loads it first)' }];
    const schema = rule.tool === '*' ? undefined : inputSchemaOf(manifest, String(rule.tool), builtins);
    if (schema === null) return [{ path, message: `is for tool "${String(rule.tool)}", which this manifest does not have, so its arguments are unknown; name one of the manifest's tools, or "*"` }];
    const problem = engine.check(rule.condition, schema);
    if (!problem) return [];
    const where = problem.at === undefined ? '' : ` (at column ${problem.at + 1})`;
    return [{ path, message: `${problem.message}${where}` }];
  });
}

/** The tool's input schema as the gateway will build it: the manifest's, else its built-in's; null when there is no such tool. */
function inputSchemaOf(manifest: JsonObject, tool: string, builtins: ReadonlyMap<string, ToolExecutor>): unknown {
  const entry = Array.isArray(manifest.tools) ? manifest.tools.find((t) => isJsonObject(t) && t.name === tool) : undefined;
  if (isJsonObject(entry)) {
    if (entry.input_schema !== undefined) return entry.input_schema;
    const executor = isJsonObject(entry.executor) ? entry.executor : {};
    const builtin = executor.kind === 'builtin' ? builtins.get(typeof executor.name === 'string' ? executor.name : tool) : undefined;
    return builtin?.definition.input_schema ?? { type: 'object', properties: {} };
  }
  return builtins.get(tool)?.definition.input_schema ?? null;
}
