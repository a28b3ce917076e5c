import { isJsonObject, type JsonObject } from '../json.ts';
import type { McpConnection } from './connection.ts';
import { BrokenAnswerError } from './errors.ts';
import { listAllPages } from './pages.ts';

/** A tool as an upstream lists it: the fields toolgate reads, the rest kept as sent. */
export interface UpstreamTool extends JsonObject {
  name: string;
  inputSchema: JsonObject;
}

function readTools(page: JsonObject, pageNumber: number): UpstreamTool[] {
  if (!Array.isArray(page.tools)) throw new BrokenAnswerError(`its tools/list answer (page ${pageNumber}) has no "tools" list`);
  return page.tools.map((tool, i) => {
    if (!isJsonObject(tool) || typeof tool.name !== 'string' || tool.name === '') throw new BrokenAnswerError(`its tools/list answer (page ${pageNumber}) has a tool without a name at tools[${i}]`);
    if (!isJsonObject(tool.inputSchema)) throw new BrokenAnswerError(`its tools/list answer says tool "${tool.name.slice(0, 64)}" has no inputSchema object`);
    return tool as UpstreamTool;
  });
}

/** Every tool the upstream lists, following `nextCursor` pages. */
export function listUpstreamTools(connection: McpConnection, signal: AbortSignal): Promise<UpstreamTool[]> {
  return listAllPages(connection, 'tools/list', signal, readTools);
}
