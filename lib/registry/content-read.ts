import { ContentOutput, type ContentPart, type EmbeddedResourcePart } from './content-parts.ts';
import { isJsonObject, type JsonObject } from './json.ts';

/** A body that claims to be content parts but is not shaped like them; the message names the field. */
export class ContentShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContentShapeError';
  }
}

/** A tool result body read as content parts: MCP's CallToolResult shape. */
export interface ReadToolResult {
  output: ContentOutput;
  isError: boolean;
}

/**
 * Reads `{"content": [ContentBlock...], "structuredContent"?: {...}, "isError"?: bool}` (an MCP
 * CallToolResult) from untrusted JSON: an http executor's answer or a client's posted result.
 * Checks shapes only; sizes, base64 and media types are checked later for every source alike
 * (lib/dispatch/content-check.ts). Unknown fields (`annotations`, `_meta`) are dropped.
 */
export function readToolResultBody(body: unknown): ReadToolResult {
  if (!isJsonObject(body)) throw new ContentShapeError('the body must be a JSON object {"content": [...], "structuredContent"?, "isError"?}');
  if (!Array.isArray(body.content)) throw new ContentShapeError('content must be an array of content parts');
  if (body.structuredContent !== undefined && !isJsonObject(body.structuredContent)) throw new ContentShapeError('structuredContent must be a JSON object');
  if (body.isError !== undefined && typeof body.isError !== 'boolean') throw new ContentShapeError('isError must be true or false');
  const parts = body.content.map((part, i) => readPart(part, `content[${i}]`));
  return { output: new ContentOutput(parts, body.structuredContent as JsonObject | undefined), isError: body.isError === true };
}

function readPart(value: unknown, path: string): ContentPart {
  if (!isJsonObject(value)) throw new ContentShapeError(`${path} must be an object with a "type"`);
  const field = (name: string) => requireString(value[name], `${path}.${name}`);
  switch (value.type) {
    case 'text':
      return { type: 'text', text: field('text') };
    case 'image':
    case 'audio':
      return { type: value.type, data: field('data'), mimeType: field('mimeType') };
    case 'resource':
      return { type: 'resource', resource: readResource(value.resource, `${path}.resource`) };
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: field('uri'),
        name: field('name'),
        ...optionalStrings(value, path, ['title', 'description', 'mimeType']),
        ...(value.size !== undefined ? { size: requireSize(value.size, `${path}.size`) } : {}),
      };
    default:
      throw new ContentShapeError(`${path}.type must be one of text, image, audio, resource, resource_link (got ${JSON.stringify(value.type)?.slice(0, 40)})`);
  }
}

function readResource(value: unknown, path: string): EmbeddedResourcePart['resource'] {
  if (!isJsonObject(value)) throw new ContentShapeError(`${path} must be an object {uri, mimeType?, text} or {uri, mimeType?, blob}`);
  const uri = requireString(value.uri, `${path}.uri`);
  const mime = optionalStrings(value, path, ['mimeType']);
  if (typeof value.text === 'string') return { uri, ...mime, text: value.text };
  if (typeof value.blob === 'string') return { uri, ...mime, blob: value.blob };
  throw new ContentShapeError(`${path} must have "text" (a string) or "blob" (base64)`);
}

function optionalStrings(value: JsonObject, path: string, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) if (value[name] !== undefined) out[name] = requireString(value[name], `${path}.${name}`);
  return out;
}

function requireString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new ContentShapeError(`${path} must be a string`);
  return value;
}

function requireSize(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new ContentShapeError(`${path} must be a whole number of bytes`);
  return value;
}
