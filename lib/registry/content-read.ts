import { MAX_PART_META_CHARS, MAX_PARTS_METADATA_CHARS, MAX_RESULT_META_CHARS, MetadataBudget, passedMeta } from './content-meta.ts';
import { ContentOutput, type ContentAnnotations, type ContentPart, type EmbeddedResourcePart, type Icon, type PartMetadata } from './content-parts.ts';
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
 * Reads `{"content": [ContentBlock...], "structuredContent"?: {...}, "isError"?: bool, "_meta"?}`
 * (an MCP CallToolResult) from untrusted JSON: an MCP upstream's or an http executor's answer,
 * or a client's posted result. Checks shapes (annotations included); sizes, base64 and media
 * types are checked later for every source alike (lib/dispatch/content-check.ts). `_meta` keys
 * reserved for toolgate and MCP are dropped, and a `_meta` too large to be metadata is dropped
 * whole; unknown fields are dropped.
 */
export function readToolResultBody(body: unknown): ReadToolResult {
  if (!isJsonObject(body)) throw new ContentShapeError('the body must be a JSON object {"content": [...], "structuredContent"?, "isError"?}');
  if (!Array.isArray(body.content)) throw new ContentShapeError('content must be an array of content parts');
  if (body.structuredContent !== undefined && !isJsonObject(body.structuredContent)) throw new ContentShapeError('structuredContent must be a JSON object');
  if (body.isError !== undefined && typeof body.isError !== 'boolean') throw new ContentShapeError('isError must be true or false');
  if (body._meta !== undefined && !isJsonObject(body._meta)) throw new ContentShapeError('_meta must be a JSON object');
  const budget = new MetadataBudget(MAX_PARTS_METADATA_CHARS);
  const parts = body.content.map((part, i) => readPart(part, `content[${i}]`, budget));
  const isError = body.isError === true;
  const meta = passedMeta(body._meta as JsonObject | undefined, MAX_RESULT_META_CHARS);
  return { output: new ContentOutput(parts, body.structuredContent as JsonObject | undefined, { isError, ...(meta ? { meta } : {}) }), isError };
}

function readPart(value: unknown, path: string, budget: MetadataBudget): ContentPart {
  if (!isJsonObject(value)) throw new ContentShapeError(`${path} must be an object with a "type"`);
  return { ...readPayload(value, path, budget), ...readMetadata(value, path, budget) } as ContentPart;
}

function readPayload(value: JsonObject, path: string, budget: MetadataBudget): ContentPart {
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
        ...readIcons(value.icons, `${path}.icons`, budget),
      };
    default:
      throw new ContentShapeError(`${path}.type must be one of text, image, audio, resource, resource_link (got ${JSON.stringify(value.type)?.slice(0, 40)})`);
  }
}

/** Characters of an annotation's `lastModified` (an ISO 8601 time is 35 at most). */
const MAX_TIMESTAMP_CHARS = 64;
const AUDIENCES = new Set(['user', 'assistant']);

function readMetadata(value: JsonObject, path: string, budget: MetadataBudget): PartMetadata {
  if (value._meta !== undefined && !isJsonObject(value._meta)) throw new ContentShapeError(`${path}._meta must be a JSON object`);
  const meta = passedMeta(value._meta, MAX_PART_META_CHARS, budget);
  const annotations = value.annotations === undefined ? undefined : readAnnotations(value.annotations, `${path}.annotations`);
  return { ...(annotations ? { annotations } : {}), ...(meta ? { _meta: meta } : {}) };
}

function readAnnotations(value: unknown, path: string): ContentAnnotations | undefined {
  if (!isJsonObject(value)) throw new ContentShapeError(`${path} must be an object {audience?, priority?, lastModified?}`);
  const { audience, priority, lastModified } = value;
  if (audience !== undefined && !(Array.isArray(audience) && audience.every((who) => typeof who === 'string' && AUDIENCES.has(who)))) {
    throw new ContentShapeError(`${path}.audience must be a list of "user" and "assistant"`);
  }
  if (priority !== undefined && !(typeof priority === 'number' && priority >= 0 && priority <= 1)) throw new ContentShapeError(`${path}.priority must be a number from 0 to 1`);
  if (lastModified !== undefined && !(typeof lastModified === 'string' && lastModified.length <= MAX_TIMESTAMP_CHARS)) {
    throw new ContentShapeError(`${path}.lastModified must be an ISO 8601 time`);
  }
  const read: ContentAnnotations = {
    ...(audience !== undefined ? { audience: [...new Set(audience as Array<'user' | 'assistant'>)] } : {}),
    ...(priority !== undefined ? { priority } : {}),
    ...(lastModified !== undefined ? { lastModified } : {}),
  };
  return Object.keys(read).length > 0 ? read : undefined;
}

/** Icons a link may carry, and characters of JSON they may take together (an icon may be a small data: URL). */
const MAX_ICONS = 8;
const MAX_ICONS_CHARS = 8 * 1024;
const THEMES = new Set(['light', 'dark']);

/**
 * Where an icon may come from: the web, or a raster image inline. Anything else a client might
 * load or follow (javascript:, an SVG or HTML data URL, which can carry script, a local file) is
 * no icon of a tool's to hand on, as an SVG image part is not (lib/dispatch/content-check.ts).
 */
const ICON_SOURCE = /^(?:https?:\/\/|data:image\/(?:png|jpeg|gif|webp);base64,)/i;

/** Whether an icon's `src` is one a client may be handed (ICON_SOURCE). */
export const isShowableIconSource = (src: unknown): boolean => typeof src === 'string' && ICON_SOURCE.test(src);

/** A link's icons that may be shown, or none when there are more than fit (they decorate; they are not the answer). */
function readIcons(value: unknown, path: string, budget: MetadataBudget): { icons?: Icon[] } {
  if (value === undefined) return {};
  if (!Array.isArray(value)) throw new ContentShapeError(`${path} must be a list of icons {src, mimeType?, sizes?, theme?}`);
  const icons = value.map((icon, i): Icon => {
    const at = `${path}[${i}]`;
    if (!isJsonObject(icon)) throw new ContentShapeError(`${at} must be an object {src, mimeType?, sizes?, theme?}`);
    const sizes = icon.sizes;
    if (sizes !== undefined && !(Array.isArray(sizes) && sizes.every((size) => typeof size === 'string'))) throw new ContentShapeError(`${at}.sizes must be a list of strings`);
    if (icon.theme !== undefined && !(typeof icon.theme === 'string' && THEMES.has(icon.theme))) throw new ContentShapeError(`${at}.theme must be "light" or "dark"`);
    return {
      src: requireString(icon.src, `${at}.src`),
      ...optionalStrings(icon, at, ['mimeType']),
      ...(sizes !== undefined ? { sizes: sizes as string[] } : {}),
      ...(icon.theme !== undefined ? { theme: icon.theme as 'light' | 'dark' } : {}),
    };
  }).filter((icon) => isShowableIconSource(icon.src));
  return icons.length > 0 && icons.length <= MAX_ICONS && budget.take(icons, MAX_ICONS_CHARS) ? { icons } : {};
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
