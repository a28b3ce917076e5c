import type { ToolExecutor } from '../../registry/executor.ts';
import type { ToolRegistry } from '../../registry/registry.ts';
import { fail, pass, type StageResult } from './stage.ts';

const LISTED_NAMES = 30;

export function lookupStage(registry: ToolRegistry, name: string): StageResult<ToolExecutor> {
  const executor = registry.get(name);
  if (executor) return pass(executor);
  const names = registry.names();
  const shown = names.slice(0, LISTED_NAMES).join(', ') + (names.length > LISTED_NAMES ? ', …' : '');
  return fail({
    code: 'unknown_tool',
    message: `Unknown tool \`${name}\`. ${names.length > 0 ? `Available tools: ${shown}.` : 'No tools are available.'}`,
    details: { tool: name },
  });
}
