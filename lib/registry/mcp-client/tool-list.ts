import { isJsonObject, type JsonObject } from '../json.ts';
import type { McpConnection } from './connection.ts';
import { BrokenAnswerError } from './errors.ts';

/** A tool as an upstream lists it: the fields toolgate reads, the rest kept as sent. */
export interface UpstreamTool extends JsonObject {
  name: string;
  inputSchema: JsonObject;
}

/** Pages one listing may take: far more than any server needs, and a bound on one that never ends. */
const MAX_PAGES = 1_000;

function readTools(page: JsonObject, pageNumber: number): UpstreamTool[] {
  if (!Array.isArray(page.tools)) throw new BrokenAnswerError(`its tools/list answer (page ${pageNumber}) has no "tools" list`);
  return page.tools.map((tool, i) => {
    if (!isJsonObject(tool) || typeof tool.name !== 'string' || tool.name === '') throw new BrokenAnswerError(`its tools/list answer (page ${pageNumber}) has a tool without a name at tools[${i}]`);
    if (!isJsonObject(tool.inputSchema)) throw new BrokenAnswerError(`its tools/list answer says tool "${tool.name.slice(0, 64)}" has no inputSchema object`);
    return tool as UpstreamTool;
  });
}

/** Every tool the upstream lists, following `nextCursor` pages. */
export async function listUpstreamTools(connection: McpConnection, signal: AbortSignal): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const answer = await connection.request('tools/list', cursor === undefined ? {} : { cursor }, signal);
    tools.push(...readTools(answer, page));
    cursor = typeof answer.nextCursor === 'string' ? answer.nextCursor : undefined;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new BrokenAnswerError(`the server repeated the tools/list cursor "${cursor.slice(0, 100)}"; its pagination loops`);
    if (page >= MAX_PAGES) throw new BrokenAnswerError(`its tools/list goes on past ${MAX_PAGES} pages`);
    seen.add(cursor);
  }
}
