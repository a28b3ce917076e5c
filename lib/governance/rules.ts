import { compileSafePattern, PatternError, withPatternBudget, type PatternBudget, type SafePattern } from '../patterns/index.ts';
import type { JsonObject } from '../registry/json.ts';
import { classArguments, patternArguments, type ArgumentClass, type ArgumentMatcherSource } from './argument-classes.ts';
import type { PolicyAction } from './policy.ts';
import { RuleCondition } from './conditions/rule-condition.ts';

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
  /** For a `review` rule: how many distinct approvers the call needs. */
  approvals?: { quorum?: number };
  /**
   * For a `grant` rule: the longest a call it grants may run, in milliseconds, whatever the call
   * asks (the shell tool's timeout_ms); default DEFAULT_GRANTED_TIMEOUT_MS (policy.ts).
   */
  max_timeout_ms?: number;
  /** A CEL expression over the call (`args`, `tool`, `principal.id`, `principal.claims`, `now`) that must be true too (conditions/). */
  condition?: string;
}

export interface CompiledRule {
  index: number;
  rule: PolicyRule;
  patterns: Array<[name: string, pattern: ArgumentPattern]>;
  classes: Array<[name: string, argumentClass: ArgumentClass]>;
  /** The rule's condition, compiled per tool on first use. */
  condition?: RuleCondition;
}

/** What a rule's condition reads of the call besides the tool and its arguments. */
export interface RuleCaller {
  principal: string;
  claims: Readonly<Record<string, unknown>>;
  now: number;
  /** The tool's input schema: the condition's `args` are typed by it. */
  inputSchema: unknown;
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
    ...(rule.condition !== undefined ? { condition: new RuleCondition(rule.condition, rule.action) } : {}),
  }));
}

/** Whether a rule that could apply to `tool` has a condition (the CEL engine must be loaded before it is matched). */
export function rulesHaveConditions(rules: readonly CompiledRule[], tool: string): boolean {
  return rules.some((compiled) => compiled.condition !== undefined && (compiled.rule.tool === '*' || compiled.rule.tool === tool));
}

/**
 * Whether one argument satisfies a rule's pattern. Strings, numbers and booleans are matched as
 * text, numbers written out in full (`1e21` is `1000000000000000000000`, so a digits-only deny
 * rule still sees its digits). A value no pattern can judge (an array, an object, null) never
 * satisfies a grant rule and always satisfies a deny or review rule: a permissive schema must
 * not let a list slip past a deny rule written for a string. An absent argument satisfies none.
 */
function argumentMatches(value: unknown, pattern: ArgumentPattern, action: PolicyAction): boolean {
  if (value === undefined) return false;
  const text = typeof value === 'string' ? value : typeof value === 'number' ? plainNumber(value) : typeof value === 'boolean' ? String(value) : undefined;
  if (text === undefined) return action !== 'grant';
  return pattern.test(text);
}

/** A number as digits, never in exponent form. */
function plainNumber(value: number): string {
  const text = String(value);
  const exponent = text.indexOf('e');
  if (exponent < 0) return text;
  if (Number.isInteger(value)) return BigInt(value).toString();
  const mantissaDecimals = (text.slice(0, exponent).split('.')[1] ?? '').length;
  return value.toFixed(Math.min(100, mantissaDecimals - Number(text.slice(exponent + 1))));
}

/**
 * The first rule that applies to this call, if any (first match wins). One matching budget for
 * all the rules, within the request's (`requestBudget`, when given): past either,
 * PatternBudgetError, and the call does not run. Rules with a condition need the CEL engine
 * loaded (policy.ts loads it before matching them).
 */
export function firstMatchingRule(rules: readonly CompiledRule[], tool: string, args: JsonObject, caller: RuleCaller, requestBudget?: PatternBudget): CompiledRule | undefined {
  const decide = () =>
    withPatternBudget(() =>
      rules.find(
        (compiled) =>
          (compiled.rule.tool === '*' || compiled.rule.tool === tool) &&
          compiled.patterns.every(([name, pattern]) => argumentMatches(args[name], pattern, compiled.rule.action)) &&
          compiled.classes.every(([name, argumentClass]) => argumentClass.matches(args[name])) &&
          (compiled.condition === undefined || compiled.condition.holds({ tool, args, principal: caller.principal, claims: caller.claims, now: caller.now }, compiled.rule.tool === '*' ? undefined : caller.inputSchema)),
      ),
    );
  return requestBudget ? withPatternBudget(decide, requestBudget) : decide();
}
