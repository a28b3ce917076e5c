import type { ToolDefinition } from '../definition.ts';
import type { ToolExecutor } from '../executor.ts';
import type { JsonObject } from '../json.ts';
import type { ExecutorKind, ExecutorKindContext } from './kind.ts';

const builtinName = (config: JsonObject, toolName: string) => (typeof config.name === 'string' ? config.name : toolName);

/** `{"kind": "builtin", "name"?: "echo"}`: a tool registered in code, with the manifest's overrides. */
export const builtinExecutorKind: ExecutorKind = {
  kind: 'builtin',
  needsDefinition: false,
  check(config, path, toolName, context) {
    const name = builtinName(config, toolName);
    if (context.builtins.has(name)) return [];
    return [{ path: `${path}.name`, message: `unknown builtin tool "${name}" (available: ${[...context.builtins.keys()].join(', ')})` }];
  },
  baseDefinition(config, toolName, context) {
    return context.builtins.get(builtinName(config, toolName))?.definition;
  },
  create(definition: ToolDefinition, config: JsonObject, context: ExecutorKindContext): ToolExecutor {
    const builtin = context.builtins.get(builtinName(config, definition.name));
    if (!builtin) throw new Error(`unknown builtin tool "${builtinName(config, definition.name)}"`);
    return { name: definition.name, definition, execute: (args, ctx) => builtin.execute(args, ctx) };
  },
};
