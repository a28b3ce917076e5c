import type { JsonObject } from '../registry/json.ts';
import { classArguments, patternArguments, type ArgumentClass, type ArgumentMatcherSource } from './argument-classes.ts';
import type { PolicyAction } from './policy.ts';

/** A manifest policy rule: for `tool` ("*" = any), when every named argument matches, take `action`. */
export interface PolicyRule {
  tool: string;
  /**
   * Argument name → regular expression that must match the WHOLE value (a string or number), or
   * `{ class: NAME }` to match by meaning (argument-classes.ts).
   */
  arguments?: Record<string, ArgumentMatcherSource>;
  action: PolicyAction;
  description?: string;
}

export interface CompiledRule {
  index: number;
  rule: PolicyRule;
  patterns: Array<[name: string, pattern: RegExp]>;
  classes: Array<[name: string, argumentClass: ArgumentClass]>;
}

/**
 * Patterns are anchored at both ends: a grant rule for `ls( -la)?` must not also grant
 * `ls; rm -rf ~`, which an unanchored search would.
 */
export function compileRules(rules: readonly PolicyRule[]): CompiledRule[] {
  return rules.map((rule, index) => ({
    index,
    rule,
    classes: classArguments(rule.tool, rule.arguments),
    patterns: Object.entries(patternArguments(rule.arguments)).map(([name, source]) => [name, new RegExp(`^(?:${source})$`, 'u')]),
  }));
}

function argumentMatches(value: unknown, pattern: RegExp): boolean {
  return (typeof value === 'string' || typeof value === 'number') && pattern.test(String(value));
}

/** The first rule that applies to this call, if any (first match wins). */
export function firstMatchingRule(rules: readonly CompiledRule[], tool: string, args: JsonObject): CompiledRule | undefined {
  return rules.find((compiled) => (compiled.rule.tool === '*' || compiled.rule.tool === tool) && compiled.patterns.every(([name, pattern]) => argumentMatches(args[name], pattern)) && compiled.classes.every(([name, argumentClass]) => argumentClass.matches(args[name])));
}
