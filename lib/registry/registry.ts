import type { ToolDefinition } from './definition.ts';
import type { ToolExecutor } from './executor.ts';

export interface RegisterOptions {
  /** Replace a tool already registered under the same name instead of failing. */
  replace?: boolean;
}

export interface ListOptions {
  /** Keep tools carrying every one of these tags. */
  tags?: string[];
}

export class DuplicateToolError extends Error {
  constructor(name: string) {
    super(`tool "${name}" is already registered; pass { replace: true } to replace it`);
    this.name = 'DuplicateToolError';
  }
}

/** Tools by name, in registration order. */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolExecutor>();

  register(executor: ToolExecutor, options: RegisterOptions = {}): void {
    if (this.#tools.has(executor.name) && !options.replace) throw new DuplicateToolError(executor.name);
    this.#tools.set(executor.name, executor);
  }

  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  get(name: string): ToolExecutor | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  list(options: ListOptions = {}): ToolExecutor[] {
    const wanted = options.tags ?? [];
    const all = [...this.#tools.values()];
    if (wanted.length === 0) return all;
    return all.filter((tool) => wanted.every((tag) => tool.definition.tags.includes(tag)));
  }

  definitions(options: ListOptions = {}): ToolDefinition[] {
    return this.list(options).map((tool) => tool.definition);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  get size(): number {
    return this.#tools.size;
  }
}
