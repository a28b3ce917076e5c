import { FnToolExecutor, type ToolExecutor } from '../registry/executor.ts';
import type { CatalogSource } from './catalog.ts';
import { SEARCH_TOOL_DEFINITION } from './search-tool-definition.ts';

/**
 * The `search_tools` executor of one manifest version. The search code (index, ranking,
 * formats) is imported on the first call, so a Worker that never searches never compiles it.
 */
export function searchToolExecutor(source: CatalogSource): ToolExecutor {
  return new FnToolExecutor(SEARCH_TOOL_DEFINITION, async (args, context) => {
    const { runSearchTool } = await import('./search-tool.ts');
    return runSearchTool(source, args, context);
  });
}
