import { SERVER_INFO_META_KEY } from './envelope.ts';
import { isPlainObject, type JsonObject } from './json-rpc.ts';

/**
 * What a 2026-07-28 result carries besides its payload: `resultType` (a client rejects a modern
 * result without it), cache hints on the cacheable results, and the server's identity in
 * `_meta`. Vocabulary the revision deleted (a tool's `execution`) is left out.
 */

export type ResultType = 'complete' | 'input_required' | 'task';

/** Whose cache may keep a result: only the requesting client's (`private`), or anyone's. */
export type CacheScope = 'public' | 'private';

export interface CacheHint {
  /** How long the result stays fresh, in whole milliseconds (like max-age). */
  ttlMs: number;
  cacheScope: CacheScope;
}

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** Results a client may cache (when complete): lists, discovery and resource reads. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

export interface CompleteResultStamp {
  serverInfo: ServerInfo;
  /** Required on a cacheable method's result; ignored on others. */
  cache?: CacheHint;
  /** More `_meta` keys (the server's own); the serverInfo key is always the stamp's. */
  meta?: JsonObject;
}

/** A method's complete result as the modern wire carries it. */
export function completeResult(method: string, result: JsonObject, stamp: CompleteResultStamp): JsonObject {
  const { _meta: ownMeta, ...payload } = result;
  const cache = CACHEABLE_METHODS.has(method) && stamp.cache ? { ttlMs: Math.max(0, Math.floor(stamp.cache.ttlMs)), cacheScope: stamp.cache.cacheScope } : {};
  return {
    ...withoutDeletedFields(method, payload),
    resultType: 'complete',
    ...cache,
    _meta: { ...(isPlainObject(ownMeta) ? ownMeta : {}), ...stamp.meta, [SERVER_INFO_META_KEY]: stamp.serverInfo },
  };
}

/**
 * A method's result as the modern wire carries it, whatever its type: a handler names a type
 * other than complete (a task handle, an input request) in the result's own `resultType`; such a
 * result is stamped with the server's identity but never with cache hints (only complete results
 * are cached).
 */
export function stampedResult(method: string, result: JsonObject, stamp: CompleteResultStamp): JsonObject {
  const type = resultTypeOf(result);
  if (type === undefined || type === 'complete') return completeResult(method, result, stamp);
  const { _meta: ownMeta, resultType: _type, ...payload } = result;
  return { resultType: type, ...payload, _meta: { ...(isPlainObject(ownMeta) ? ownMeta : {}), ...stamp.meta, [SERVER_INFO_META_KEY]: stamp.serverInfo } };
}

/** The `resultType` of a modern result, or undefined when it has none (a legacy result). */
export function resultTypeOf(result: unknown): string | undefined {
  return isPlainObject(result) && typeof result.resultType === 'string' ? result.resultType : undefined;
}

function withoutDeletedFields(method: string, payload: JsonObject): JsonObject {
  if (method !== 'tools/list' || !Array.isArray(payload.tools)) return payload;
  return { ...payload, tools: payload.tools.map((tool) => (isPlainObject(tool) && 'execution' in tool ? withoutKey(tool, 'execution') : tool)) };
}

function withoutKey(value: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = value;
  return rest;
}
