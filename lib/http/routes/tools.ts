import { Hono, type Context } from 'hono';
import { GeminiSchemaError, exportTools, NATIVE_TOOL_FORMATS, TOOL_FORMATS, type ToolFormat } from '../../registry/formats/index.ts';
import { parseStage } from '../../dispatch/stages/parse.ts';
import { validateStage } from '../../dispatch/stages/validate.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';
import { TOOL_NAME } from '../identifiers.ts';
import { InputError } from '../input-error.ts';
import { choiceQuery, identifierParam, integerQuery, queryValue } from '../params.ts';
import { readKnownObject } from '../strict-body.ts';
import type { TenantRuntime } from '../../dispatch/tenant-runtime.ts';
import type { ToolDefinition } from '../../registry/definition.ts';
import { callableBy } from '../../search/callable.ts';
import type { CatalogQuery } from '../../search/catalog.ts';
import { DEFER_FORMATS, withDeferredLoading, type DeferFormat } from '../../search/deferred-tools.ts';
import { MAX_QUERY_CHARS } from '../../search/search-tool-definition.ts';

const MAX_TAGS = 50;
const MAX_TAG_LENGTH = 200;
const VALIDATE_FIELDS = { fields: ['arguments'] };
const SEARCH_LIMIT = { min: 1, max: 50, default: 10 };

/** `?tag=a&tag=b` or `?tag=a,b`: tools carrying any of them; bounded so a filter stays a filter. */
function tagsQuery(c: Context): string[] {
  const tags = c.req.queries('tag')?.flatMap((t) => t.split(',')).filter(Boolean) ?? [];
  if (tags.length > MAX_TAGS) throw new InputError(`tag names at most ${MAX_TAGS} tags (got ${tags.length})`);
  if (tags.some((t) => t.length > MAX_TAG_LENGTH)) throw new InputError(`each tag must be at most ${MAX_TAG_LENGTH} characters`);
  return tags;
}

/**
 * `?native=1|0` (or true/false): the provider's native tools in place of the function versions of
 * the tools they stand for; absent, the format's default. Only formats whose provider has them.
 */
function nativeQuery(c: Context, format: ToolFormat): boolean | undefined {
  const raw = queryValue(c, 'native');
  if (raw === undefined) return undefined;
  if (!['1', '0', 'true', 'false'].includes(raw)) throw new InputError('native must be 1 or 0 (true or false)');
  if (!(NATIVE_TOOL_FORMATS as readonly string[]).includes(format)) throw new InputError(`native tools exist for format=${NATIVE_TOOL_FORMATS.join(', ')} (got format=${format})`);
  return raw === '1' || raw === 'true';
}

/**
 * `?q=words&limit=N`: the tools best matching the words, best first (lib/search), among those the
 * caller may call; limit 1 to 50, default 10. q is at most 500 characters: a search is a few
 * words, and a bound keeps a request's work bounded.
 */
function searchQuery(c: Context): { query: string; limit: number } | undefined {
  const query = queryValue(c, 'q');
  if (query === undefined) {
    if (queryValue(c, 'limit') !== undefined) throw new InputError('limit applies to a search: give q (what to search for) too');
    return undefined;
  }
  if (query.trim() === '') throw new InputError('q must say what to search for, in a few words (e.g. q=create+issue)');
  if (query.length > MAX_QUERY_CHARS) throw new InputError(`q must be at most ${MAX_QUERY_CHARS} characters (got ${query.length}): search with a few words`);
  return { query, limit: integerQuery(c, 'limit', SEARCH_LIMIT) };
}

/** `?defer=1|0` (or true/false): the provider's deferred loading (lib/search/deferred-tools.ts); only formats whose provider has it. */
function deferQuery(c: Context, format: ToolFormat): DeferFormat | undefined {
  const raw = queryValue(c, 'defer');
  if (raw === undefined) return undefined;
  if (!['1', '0', 'true', 'false'].includes(raw)) throw new InputError('defer must be 1 or 0 (true or false)');
  if (raw === '0' || raw === 'false') return undefined;
  if (!(DEFER_FORMATS as readonly string[]).includes(format)) throw new InputError(`defer=1 exists for format=${DEFER_FORMATS.join(', ')}: the providers with deferred tool loading (got format=${format})`);
  return format as DeferFormat;
}

/**
 * Every tool the caller may call (its scopes, the tenant's policy): what every list shows, plain
 * or deferred (a deferred tool is still one the model may call), as search does. A model shown a
 * tool it can only be refused wastes a turn on it.
 */
function callableDefinitions(runtime: TenantRuntime, scopes: ReadonlySet<string>, tags: string[]): ToolDefinition[] {
  const callable = callableBy(runtime.manifest, scopes);
  return runtime.registry.definitions({ tags }).filter(callable);
}

/** The search's answer; the index and its code load on a runtime's first search (a Worker that never searches never compiles them). */
async function searchResults(runtime: TenantRuntime, query: CatalogQuery): Promise<ToolDefinition[]> {
  const { toolCatalog } = await import('../../search/catalog.ts');
  const catalog = await toolCatalog({ manifest: runtime.manifest, registry: runtime.registry, store: runtime.deps.store, log: runtime.deps.log });
  return catalog.search(query);
}

/** GET /v1/tools, GET /v1/tools/:name, POST /v1/tools/:name/validate. */
export function toolRoutes() {
  const routes = new Hono<GatewayEnv>();

  routes.get('/', async (c) => {
    const runtime = c.get('runtime');
    const format = choiceQuery(c, 'format', TOOL_FORMATS) ?? 'toolgate';
    const tags = tagsQuery(c);
    const native = nativeQuery(c, format);
    const search = searchQuery(c);
    const defer = deferQuery(c, format);
    if (search && defer) throw new InputError('q and defer=1 ask for different lists (the best matches, or every tool with most deferred): give one of them');
    const scopes = new Set(c.get('principal').scopes);
    const definitions = search ? await searchResults(runtime, { ...search, scopes, tags }) : callableDefinitions(runtime, scopes, tags);
    try {
      const registered = { isRegistered: (name: string) => runtime.registry.has(name) };
      const exported = exportTools(definitions, format, { native, profile: runtime.manifest.profile, registered });
      const tools = defer ? withDeferredLoading(exported, defer, new Set(runtime.manifest.tool_search?.always_loaded)) : exported;
      const listing = { tenant: runtime.manifest.tenant, version: runtime.manifest.version, profile: runtime.manifest.profile, format };
      return c.json({ ...listing, ...(search ? { query: search.query } : {}), ...(defer ? { deferred: true } : {}), tools });
    } catch (error) {
      if (error instanceof GeminiSchemaError) return errorResponse(c, 422, 'unsupported_schema', error.message);
      throw error;
    }
  });

  routes.get('/:name', (c) => {
    const name = identifierParam(c, 'name', TOOL_NAME, 'tool name');
    const tool = c.get('runtime').registry.get(name);
    if (!tool) return errorResponse(c, 404, 'not_found', `tool "${name}" not found`);
    return c.json(tool.definition);
  });

  routes.post('/:name/validate', async (c) => {
    const runtime = c.get('runtime');
    const name = identifierParam(c, 'name', TOOL_NAME, 'tool name');
    const tool = runtime.registry.get(name);
    if (!tool) return errorResponse(c, 404, 'not_found', `tool "${name}" not found`);
    const read = await readKnownObject(c, VALIDATE_FIELDS);
    if (!read.ok) return read.response;
    if (!Object.hasOwn(read.body, 'arguments')) return errorResponse(c, 400, 'invalid_request', 'arguments is required: send {"arguments": {...}}, the arguments to check');
    const parsed = parseStage(read.body.arguments);
    const outcome = parsed.ok ? validateStage(runtime.deps.schemas, tool.definition, parsed.value) : parsed;
    return c.json(outcome.ok ? { valid: true } : { valid: false, error: outcome.failure });
  });

  return routes;
}
