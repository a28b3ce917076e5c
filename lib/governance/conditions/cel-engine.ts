import { Environment, type ASTNode, type ParseResult } from '@marcbachmann/cel-js';
import { checkPattern, compileSafePattern, withPatternBudget, type SafePattern } from '../../patterns/index.ts';
import { NativeRegExp } from '../../patterns/native-regexp.ts';
import { celArguments, celSchemaOf, type CelObject } from './argument-types.ts';
import { ConditionCompileError, type CompiledCondition, type ConditionEngine, type ConditionInput, type ConditionProblem } from './condition.ts';

/**
 * Conditions in CEL, by @marcbachmann/cel-js (no eval, no dependencies, type-checks against
 * declared fields). Loaded only through condition.ts's loadConditionEngine.
 *
 * Cost: a condition is at most MAX_SOURCE characters and LIMITS' nodes and depth, and may not
 * use what makes evaluation more than linear in the arguments' size: comprehension macros (all,
 * exists, exists_one, map, filter: nested, they are quadratic and more), joining strings or
 * lists (`+` copies), contains/indexOf/lastIndexOf/join with anything but a short literal
 * argument, and `matches` with anything but a literal pattern that lib/patterns finds
 * free of catastrophic backtracking. `matches` then runs on lib/patterns' linear-time matcher
 * in Unicode mode (withConditionRegExp), on the request's matching budget, so it behaves the same
 * on every runtime.
 */
export const MAX_SOURCE = 1000;
const LIMITS = { maxAstNodes: 100, maxDepth: 12, maxListElements: 32, maxMapEntries: 32, maxCallArguments: 4 };
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
/** String searches whose cost is the string's length times the searched-for text's length. */
const SEARCHES = new Set(['contains', 'indexOf', 'lastIndexOf']);
const MAX_SEARCH_LITERAL = 64;
/** Any tool: the arguments are a map, read with has() and compared at evaluation. */
const ANY_TOOL_ARGS = 'map<string, dyn>';

export function celConditionEngine(): ConditionEngine {
  const environments = new WeakMap<object, { env: Environment; fields: CelObject }>();
  const anyTool = { env: environmentWith(ANY_TOOL_ARGS), fields: undefined };
  const environmentOf = (inputSchema: unknown) => {
    if (typeof inputSchema !== 'object' || inputSchema === null) return anyTool;
    let known = environments.get(inputSchema);
    if (!known) {
      const fields = celSchemaOf(inputSchema as Record<string, unknown>);
      environments.set(inputSchema, (known = { env: environmentWith(fields), fields }));
    }
    return known;
  };
  const engine: ConditionEngine = {
    check: (source, inputSchema) => checkCondition(environmentOf(inputSchema).env, source),
    compile(source, inputSchema) {
      const problem = engine.check(source, inputSchema);
      if (problem) throw new ConditionCompileError(problem);
      const { env, fields } = environmentOf(inputSchema);
      return evaluator(env.parse(source), fields);
    },
  };
  return engine;
}

function environmentWith(args: CelObject | string): Environment {
  const env = new Environment({ limits: LIMITS });
  if (typeof args === 'string') env.registerVariable('args', args);
  else env.registerVariable({ name: 'args', schema: args });
  return env
    .registerVariable('tool', 'string')
    .registerVariable({ name: 'principal', schema: { id: 'string', claims: 'map<string, dyn>' } })
    .registerVariable('now', 'google.protobuf.Timestamp');
}

function checkCondition(env: Environment, source: string): ConditionProblem | undefined {
  if (source.length > MAX_SOURCE) return { message: `is ${source.length} characters long; a condition may have at most ${MAX_SOURCE}` };
  let parsed: ParseResult;
  try {
    parsed = env.parse(source);
  } catch (error) {
    return problemOf(error);
  }
  const checked = parsed.check();
  if (!checked.valid) return problemOf(checked.error);
  if (checked.type !== 'bool') return { message: `is of type ${checked.type ?? 'unknown'}; a condition must be true or false (a bool), e.g. "args.amount > 100.0"` };
  return costProblem(env, parsed.ast);
}

/** The first part of the expression that could make its evaluation cost more than linear. */
function costProblem(env: Environment, node: ASTNode): ConditionProblem | undefined {
  if (node.op === 'call' || node.op === 'rcall') {
    const [name] = node.args;
    if (COMPREHENSIONS.has(name)) return { at: node.start, message: `uses ${name}(), which conditions may not: its cost grows with the arguments' size times itself; test membership with "in" instead` };
    const argument = node.op === 'rcall' ? node.args[2][0] : node.args[1][1];
    if (name === 'matches') {
      const refused = patternProblem(argument);
      if (refused) return refused;
    }
    if (SEARCHES.has(name) || (name === 'join' && argument !== undefined)) {
      const refused = shortLiteralProblem(name, argument);
      if (refused) return refused;
    }
  }
  if (node.op === '+') {
    const type = env.check(node.input.slice(node.start, node.end)).type ?? '';
    if (type === 'string' || type === 'bytes' || type.startsWith('list')) return { at: node.start, message: `joins ${type.startsWith('list') ? 'lists' : 'strings'} with "+", which conditions may not (it copies the arguments); compare the parts instead` };
  }
  for (const child of children(node)) {
    const problem = costProblem(env, child);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * contains(), indexOf() and lastIndexOf() cost the string's length times the searched-for text's
 * in the worst case (V8's search: 3.6 s for 100,000 characters in 500,000), and join() makes a
 * string the list's length times its separator's: their argument is a short literal.
 */
function shortLiteralProblem(name: string, argument: ASTNode | undefined): ConditionProblem | undefined {
  if (argument?.op === 'value' && typeof argument.args === 'string' && argument.args.length <= MAX_SEARCH_LITERAL) return undefined;
  const what = name === 'join' ? 'a separator' : 'the text to find';
  return { at: argument?.start, message: `${name}() takes ${what} as a literal of at most ${MAX_SEARCH_LITERAL} characters ("…"), never one built from the call: its cost grows with the arguments' size times the argument's` };
}

function patternProblem(pattern: ASTNode | undefined): ConditionProblem | undefined {
  if (!pattern || pattern.op !== 'value' || typeof pattern.args !== 'string') {
    return { at: pattern?.start, message: 'matches() takes a literal pattern here ("…"), never one built from the call' };
  }
  const refused = checkPattern(pattern.args, 'u');
  return refused ? { at: pattern.start, message: `matches() ${refused}` } : undefined;
}

function children(node: ASTNode): ASTNode[] {
  const found: ASTNode[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null && 'op' in value && 'start' in value) found.push(value as ASTNode);
  };
  visit(node.args);
  return found;
}

function problemOf(error: unknown): ConditionProblem {
  const failure = error as { message?: string; range?: { start: number }; node?: { start?: number } } | undefined;
  const first = String(failure?.message ?? error).split('\n')[0];
  const hint = /double [=!]= int|int [=!]= double/.test(first) ? ' (the argument is a number: compare it with a number literal such as 100.0)' : '';
  return { at: failure?.range?.start ?? failure?.node?.start, message: `${first}${hint}` };
}

function evaluator(parsed: ParseResult, fields: CelObject | undefined): CompiledCondition {
  return (input: ConditionInput) => {
    const context = {
      args: fields ? celArguments(input.args, fields) : input.args,
      tool: input.tool,
      principal: { id: input.principal, claims: input.claims },
      now: new Date(input.now),
    };
    const value: unknown = withConditionRegExp(() => withPatternBudget(() => parsed(context)));
    if (typeof value !== 'boolean') throw new TypeError(`the condition gave ${typeof value}, not true or false`);
    return value;
  };
}

/**
 * cel-js's matches() builds `new RegExp(pattern)` from the global constructor at each call, and
 * its built-in cannot be replaced. While a condition evaluates (synchronously: nothing else runs)
 * the global constructor is lib/patterns' linear-time matcher in Unicode mode; a pattern it cannot
 * run throws (the condition cannot be judged), never falling back to the native engine.
 */
function withConditionRegExp<T>(evaluate: () => T): T {
  const global = globalThis as { RegExp: unknown };
  if (global.RegExp !== NativeRegExp) return evaluate();
  global.RegExp = function ConditionRegExp(source: unknown): SafePattern {
    return compileSafePattern(String(source), 'u');
  };
  try {
    return evaluate();
  } finally {
    global.RegExp = NativeRegExp;
  }
}
