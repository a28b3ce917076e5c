import { Hono } from 'hono';
import { GeminiSchemaError, exportTools, isToolFormat, TOOL_FORMATS } from '../../registry/formats/index.ts';
import { parseStage } from '../../dispatch/stages/parse.ts';
import { validateStage } from '../../dispatch/stages/validate.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse, readJsonBody } from '../errors.ts';

/** GET /v1/tools, GET /v1/tools/:name, POST /v1/tools/:name/validate. */
export function toolRoutes() {
  const routes = new Hono<GatewayEnv>();

  routes.get('/', (c) => {
    const runtime = c.get('runtime');
    const format = c.req.query('format') ?? 'toolgate';
    if (!isToolFormat(format)) return errorResponse(c, 400, 'invalid_request', `format must be one of ${TOOL_FORMATS.join(', ')}`);
    const tags = c.req.queries('tag')?.flatMap((t) => t.split(',')).filter(Boolean) ?? [];
    const definitions = runtime.registry.definitions({ tags });
    try {
      const tools = exportTools(definitions, format);
      return c.json({ tenant: runtime.manifest.tenant, version: runtime.manifest.version, profile: runtime.manifest.profile, format, tools });
    } catch (error) {
      if (error instanceof GeminiSchemaError) return errorResponse(c, 422, 'unsupported_schema', error.message);
      throw error;
    }
  });

  routes.get('/:name', (c) => {
    const tool = c.get('runtime').registry.get(c.req.param('name'));
    if (!tool) return errorResponse(c, 404, 'not_found', `tool "${c.req.param('name')}" not found`);
    return c.json(tool.definition);
  });

  routes.post('/:name/validate', async (c) => {
    const runtime = c.get('runtime');
    const tool = runtime.registry.get(c.req.param('name'));
    if (!tool) return errorResponse(c, 404, 'not_found', `tool "${c.req.param('name')}" not found`);
    const read = await readJsonBody(c);
    if (!read.ok) return read.response;
    const body = read.body as Record<string, unknown> | null;
    const raw = body !== null && typeof body === 'object' && 'arguments' in body ? body.arguments : body;
    const parsed = parseStage(raw);
    const outcome = parsed.ok ? validateStage(runtime.deps.schemas, tool.definition, parsed.value) : parsed;
    return c.json(outcome.ok ? { valid: true } : { valid: false, error: outcome.failure });
  });

  return routes;
}
