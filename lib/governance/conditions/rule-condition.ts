import { PatternBudgetError } from '../../patterns/index.ts';
import type { PolicyAction } from '../policy.ts';
import { loadedConditionEngine, type CompiledCondition, type ConditionInput } from './condition.ts';

/**
 * One rule's condition, compiled per input schema on first use (a rule for "*" reads any
 * tool's arguments as a map). Fail closed, as argument patterns do (rules.ts): a condition that
 * cannot be judged (an evaluation error: an absent argument read without has(), a value of an
 * unexpected type, a condition stored without passing publish) never grants, and always applies
 * a deny, review or confirm rule. A spent matching budget is not judged: it stops the call.
 */
export class RuleCondition {
  readonly source: string;
  readonly #action: PolicyAction;
  readonly #compiled = new WeakMap<object, CompiledCondition | Error>();
  #forAnyTool: CompiledCondition | Error | undefined;

  constructor(source: string, action: PolicyAction) {
    this.source = source;
    this.#action = action;
  }

  holds(input: ConditionInput, inputSchema: unknown): boolean {
    const condition = this.#compile(inputSchema);
    if (condition instanceof Error) return this.#unjudged();
    try {
      return condition(input);
    } catch (error) {
      if (error instanceof PatternBudgetError) throw error;
      return this.#unjudged();
    }
  }

  #unjudged(): boolean {
    return this.#action !== 'grant';
  }

  #compile(inputSchema: unknown): CompiledCondition | Error {
    const engine = loadedConditionEngine();
    if (!engine) return new Error('the condition engine is not loaded');
    const keyed = typeof inputSchema === 'object' && inputSchema !== null;
    const known = keyed ? this.#compiled.get(inputSchema) : this.#forAnyTool;
    if (known) return known;
    let compiled: CompiledCondition | Error;
    try {
      compiled = engine.compile(this.source, keyed ? inputSchema : undefined);
    } catch (error) {
      compiled = error instanceof Error ? error : new Error(String(error));
    }
    if (keyed) this.#compiled.set(inputSchema, compiled);
    else this.#forAnyTool = compiled;
    return compiled;
  }
}
