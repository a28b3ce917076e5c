import { compileSafePattern, PatternError, withPatternBudget, type PatternBudget, type SafePattern } from '../patterns/index.ts';
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
  patterns: Array<[name: string, pattern: ArgumentPattern]>;
  classes: Array<[name: string, argumentClass: ArgumentClass]>;
}

type ArgumentPattern = Pick<SafePattern, 'test'>;

/**
 * Patterns match the whole value (anchored in the matcher, so no source can break out of the
 * anchors): a grant rule for `ls( -la)?` must not also grant `ls; rm -rf ~`. Matching takes
 * time linear in the value. A pattern the matcher cannot run (stored before publish checked
 * for it: a backreference, lookaround) grants nothing: in a grant rule it matches no value, in
 * a deny or review rule every value.
 */
function compileArgumentPattern(source: string, action: PolicyAction): ArgumentPattern {
  try {
    return compileSafePattern(source, 'u', { wholeValue: true });
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    const matches = action !== 'grant';
    return { test: () => matches };
  }
}

export function compileRules(rules: readonly PolicyRule[]): CompiledRule[] {
  return rules.map((rule, index) => ({
    index,
    rule,
    classes: classArguments(rule.tool, rule.arguments),
    patterns: Object.entries(patternArguments(rule.arguments)).map(([name, source]) => [name, compileArgumentPattern(source, rule.action)]),
  }));
}

function argumentMatches(value: unknown, pattern: ArgumentPattern): boolean {
  return (typeof value === 'string' || typeof value === 'number') && pattern.test(String(value));
}

/**
 * The first rule that applies to this call, if any (first match wins). One matching budget for
 * all the rules, within the request's (`requestBudget`, when given): past either,
 * PatternBudgetError, and the call does not run.
 */
export function firstMatchingRule(rules: readonly CompiledRule[], tool: string, args: JsonObject, requestBudget?: PatternBudget): CompiledRule | undefined {
  const decide = () =>
    withPatternBudget(() =>
      rules.find(
        (compiled) =>
          (compiled.rule.tool === '*' || compiled.rule.tool === tool) &&
          compiled.patterns.every(([name, pattern]) => argumentMatches(args[name], pattern)) &&
          compiled.classes.every(([name, argumentClass]) => argumentClass.matches(args[name])),
      ),
    );
  return requestBudget ? withPatternBudget(decide, requestBudget) : decide();
}
