import { Hono, type Context } from 'hono';
import { GeminiSchemaError, exportTools, NATIVE_TOOL_FORMATS, TOOL_FORMATS, type ToolFormat } from '../../registry/formats/index.ts';
import { parseStage } from '../../dispatch/stages/parse.ts';
import { validateStage } from '../../dispatch/stages/validate.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';
import { TOOL_NAME } from '../identifiers.ts';
import { InputError } from '../input-error.ts';
import { choiceQuery, identifierParam, queryValue } from '../params.ts';
import { readKnownObject } from '../strict-body.ts';

const MAX_TAGS = 50;
const MAX_TAG_LENGTH = 200;
const VALIDATE_FIELDS = { fields: ['arguments'] };

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

/** GET /v1/tools, GET /v1/tools/:name, POST /v1/tools/:name/validate. */
export function toolRoutes() {
  const routes = new Hono<GatewayEnv>();

  routes.get('/', (c) => {
    const runtime = c.get('runtime');
    const format = choiceQuery(c, 'format', TOOL_FORMATS) ?? 'toolgate';
    const tags = tagsQuery(c);
    const native = nativeQuery(c, format);
    const definitions = runtime.registry.definitions({ tags });
    try {
      const registered = { isRegistered: (name: string) => runtime.registry.has(name) };
      const tools = exportTools(definitions, format, { native, profile: runtime.manifest.profile, registered });
      return c.json({ tenant: runtime.manifest.tenant, version: runtime.manifest.version, profile: runtime.manifest.profile, format, tools });
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
