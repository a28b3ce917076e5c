import type { JsonObject } from '../json.ts';
import type { McpConnection } from './connection.ts';
import { BrokenAnswerError } from './errors.ts';

/** Pages one listing may take: far more than any server needs, and a bound on one that never ends. */
const MAX_PAGES = 1_000;

/**
 * Every item a paginated list method answers (`tools/list`, `resources/list`, ...), following
 * `nextCursor` until there is none; `read` checks one page's items. A repeated cursor or a list
 * without end is a BrokenAnswerError.
 */
export async function listAllPages<T>(connection: McpConnection, method: string, signal: AbortSignal, read: (page: JsonObject, pageNumber: number) => T[]): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const answer = await connection.request(method, cursor === undefined ? {} : { cursor }, signal);
    items.push(...read(answer, page));
    cursor = typeof answer.nextCursor === 'string' ? answer.nextCursor : undefined;
    if (cursor === undefined) return items;
    if (seen.has(cursor)) throw new BrokenAnswerError(`the server repeated the ${method} cursor "${cursor.slice(0, 100)}"; its pagination loops`);
    if (page >= MAX_PAGES) throw new BrokenAnswerError(`its ${method} goes on past ${MAX_PAGES} pages`);
    seen.add(cursor);
  }
}
