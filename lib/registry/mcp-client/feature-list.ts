import { isJsonObject, type JsonObject } from '../json.ts';
import type { McpConnection } from './connection.ts';
import { BrokenAnswerError } from './errors.ts';
import { listAllPages } from './pages.ts';

/** A resource, resource template or prompt as an upstream lists it: the key toolgate reads, the rest kept as sent. */
export interface UpstreamResource extends JsonObject {
  uri: string;
  name: string;
}

export interface UpstreamResourceTemplate extends JsonObject {
  uriTemplate: string;
  name: string;
}

export interface UpstreamPrompt extends JsonObject {
  name: string;
}

/** What each list method answers under which member, and the string fields each item must have. */
function reader<T extends JsonObject>(method: string, member: string, required: string[]) {
  return (page: JsonObject, pageNumber: number): T[] => {
    const items = page[member];
    if (!Array.isArray(items)) throw new BrokenAnswerError(`its ${method} answer (page ${pageNumber}) has no "${member}" list`);
    return items.map((item, i) => {
      const missing = required.find((field) => !isJsonObject(item) || typeof item[field] !== 'string' || item[field] === '');
      if (missing !== undefined) throw new BrokenAnswerError(`its ${method} answer (page ${pageNumber}) has an entry without a "${missing}" at ${member}[${i}]`);
      return item as T;
    });
  };
}

export function listUpstreamResources(connection: McpConnection, signal: AbortSignal): Promise<UpstreamResource[]> {
  return listAllPages(connection, 'resources/list', signal, reader<UpstreamResource>('resources/list', 'resources', ['uri', 'name']));
}

export function listUpstreamResourceTemplates(connection: McpConnection, signal: AbortSignal): Promise<UpstreamResourceTemplate[]> {
  return listAllPages(connection, 'resources/templates/list', signal, reader<UpstreamResourceTemplate>('resources/templates/list', 'resourceTemplates', ['uriTemplate', 'name']));
}

export function listUpstreamPrompts(connection: McpConnection, signal: AbortSignal): Promise<UpstreamPrompt[]> {
  return listAllPages(connection, 'prompts/list', signal, reader<UpstreamPrompt>('prompts/list', 'prompts', ['name']));
}
