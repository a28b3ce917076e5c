/**
 * Conditions on policy rules (`rules[].condition`): a CEL expression over the call that must be
 * true for the rule to apply. This module is what the rest of the gateway imports; the CEL
 * engine itself (cel-engine.ts, with @marcbachmann/cel-js) is loaded on first use, so a tenant
 * whose rules have no condition never loads it.
 */

/** What a condition reads. */
export interface ConditionInput {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  principal: string;
  /** The caller's token claims (empty for API keys). */
  claims: Readonly<Record<string, unknown>>;
  /** ms since epoch: `now` in the expression. */
  now: number;
}

/** A condition compiled for one tool's arguments: true, false, or throws (an evaluation error). */
export type CompiledCondition = (input: ConditionInput) => boolean;

export interface ConditionProblem {
  /** Where in the condition text (0-based), when known. */
  at?: number;
  message: string;
}

export interface ConditionEngine {
  /** Type-checks and cost-checks `source` for a tool with this input schema (undefined: any tool, `args` a map). */
  check(source: string, inputSchema: unknown): ConditionProblem | undefined;
  /** A checked condition, ready to evaluate (throws ConditionCompileError when it does not check). */
  compile(source: string, inputSchema: unknown): CompiledCondition;
}

export class ConditionCompileError extends Error {
  constructor(problem: ConditionProblem) {
    super(problem.message);
    this.name = 'ConditionCompileError';
  }
}

let engine: ConditionEngine | undefined;
let loading: Promise<ConditionEngine> | undefined;

/** The CEL engine, loaded once per process (isolate). */
export function loadConditionEngine(): Promise<ConditionEngine> {
  loading ??= import('./cel-engine.ts').then((module) => (engine = module.celConditionEngine()));
  return loading;
}

/** Makes the engine available at once (Node-only code that imports cel-engine.ts statically, such as the CLI's manifest checks). */
export function useConditionEngine(loaded: ConditionEngine): void {
  engine ??= loaded;
  loading ??= Promise.resolve(engine);
}

/** The engine if it is loaded already (publish checks and the governor then stay synchronous). */
export function loadedConditionEngine(): ConditionEngine | undefined {
  return engine;
}
