import type { ToolDefinition } from '../registry/definition.ts';
import { isPlainObject } from '../mcp-wire/json-rpc.ts';
import { scanParamHeaders, type ParamHeader } from '../mcp-wire/param-headers.ts';

/** Scans, kept per schema object: a runtime's definitions live as long as its manifest version. */
const scanned = new WeakMap<object, readonly ParamHeader[]>();

/**
 * The `Mcp-Param-*` headers a tool's input schema declares (`x-mcp-header`), which a modern
 * `tools/call` must mirror. A schema breaking the declaration rules declares none: the spec
 * makes such a tool definition invalid, so nothing of it is enforced.
 */
export function toolParamHeaders(definition: ToolDefinition): readonly ParamHeader[] {
  const schema: unknown = definition.input_schema;
  if (!isPlainObject(schema)) return [];
  let headers = scanned.get(schema);
  if (!headers) {
    const scan = scanParamHeaders(schema);
    headers = scan.ok ? scan.headers : [];
    scanned.set(schema, headers);
  }
  return headers;
}
