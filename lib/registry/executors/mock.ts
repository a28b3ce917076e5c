import { defineTool, type ToolDefinition, type ToolDefinitionInput } from '../definition.ts';
import type { ToolExecutionContext, ToolExecutor, ToolOutput } from '../executor.ts';
import type { JsonObject } from '../json.ts';

/** One scripted answer: an output, an Error to throw (a ToolError keeps its code), or a function of the call. */
export type MockResult = ToolOutput | Error | ((args: JsonObject, context: ToolExecutionContext) => ToolOutput | Promise<ToolOutput>);

/** A call the mock received: its arguments and who made it. */
export interface MockCall {
  arguments: JsonObject;
  call_id: string;
  thread_id: string;
  tenant: string;
  principal: string;
}

export interface MockToolExecutorOptions {
  /** Answers in call order: the first call gets results[0], and so on. */
  results?: MockResult[];
  /** The answer once `results` are used up. Without it, a call past the script fails loudly. */
  defaultResult?: MockResult;
}

/** A tool for tests: records every call and answers with scripted results, in order. */
export class MockToolExecutor implements ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly calls: MockCall[] = [];
  readonly #results: MockResult[];
  readonly #defaultResult: MockResult | undefined;

  constructor(definition: ToolDefinitionInput, options: MockToolExecutorOptions = {}) {
    this.definition = defineTool(definition);
    this.name = this.definition.name;
    this.#results = options.results ?? [];
    this.#defaultResult = options.defaultResult;
  }

  async execute(args: JsonObject, context: ToolExecutionContext): Promise<ToolOutput> {
    const index = this.calls.length;
    this.calls.push({ arguments: args, call_id: context.call_id, thread_id: context.thread_id, tenant: context.tenant, principal: context.principal });
    const next = index < this.#results.length ? this.#results[index] : this.#fallback(index);
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(args, context) : next;
  }

  /** Forgets the calls and starts the script again from its first result. */
  reset(): void {
    this.calls.length = 0;
  }

  #fallback(index: number): MockResult {
    if (this.#defaultResult !== undefined) return this.#defaultResult;
    throw new Error(`MockToolExecutor \`${this.name}\` got call ${index + 1} but only ${this.#results.length} result(s) are scripted; add results or pass defaultResult`);
  }
}
