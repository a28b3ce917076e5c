import type { JsonObject } from './json.ts';

/**
 * One piece of a tool's output, shaped like MCP's ContentBlock: text, base64 image or audio, an
 * embedded resource (text or base64 blob) or a link to a resource, each with MCP's optional
 * `annotations` and `_meta` (checked and capped when read: content-read.ts). Provider formats
 * ignore both; MCP clients get them as they came.
 */
export type ContentPart = TextPart | ImagePart | AudioPart | EmbeddedResourcePart | ResourceLinkPart;

/** MCP's hints about a part: who it is for, how much it matters (0 to 1), when it last changed. */
export interface ContentAnnotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  /** ISO 8601. */
  lastModified?: string;
}

/** What every part may carry besides its payload. */
export interface PartMetadata {
  annotations?: ContentAnnotations;
  /** The tool's own metadata, without keys reserved for toolgate and MCP. */
  _meta?: JsonObject;
}

export interface TextPart extends PartMetadata {
  type: 'text';
  text: string;
}

export interface ImagePart extends PartMetadata {
  type: 'image';
  /** Standard base64. */
  data: string;
  mimeType: string;
}

export interface AudioPart extends PartMetadata {
  type: 'audio';
  /** Standard base64. */
  data: string;
  mimeType: string;
}

export interface EmbeddedResourcePart extends PartMetadata {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };
}

/** An icon a server offers for a resource (MCP's Icon). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface ResourceLinkPart extends PartMetadata {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
}

/** A part's annotations and `_meta`, to carry over to a part made from it (a truncated text, say). */
export function metadataOf(part: ContentPart): PartMetadata {
  return { ...(part.annotations ? { annotations: part.annotations } : {}), ...(part._meta ? { _meta: part._meta } : {}) };
}

/** Whether a part carries more than one string can: annotations or `_meta`. */
export const hasMetadata = (part: ContentPart): boolean => part.annotations !== undefined || part._meta !== undefined;

/** A part whose payload is base64 bytes (image, audio, blob resource). */
export type BinaryPart = ImagePart | AudioPart | (EmbeddedResourcePart & { resource: { blob: string } });

export function isBinaryPart(part: ContentPart): part is BinaryPart {
  return part.type === 'image' || part.type === 'audio' || (part.type === 'resource' && 'blob' in part.resource);
}

/** The base64 payload of a binary part. */
export function binaryData(part: BinaryPart): string {
  return part.type === 'resource' ? part.resource.blob : part.data;
}

/** The media type of a binary part, when it names one. */
export function binaryMimeType(part: BinaryPart): string | undefined {
  return part.type === 'resource' ? part.resource.mimeType : part.mimeType;
}

/**
 * What an executor returns when its output is more than one string: content parts plus, when
 * the tool has them, structured results (MCP's `structuredContent`, a JSON object), whether the
 * tool reported an error, and the result's `_meta`. Tagged by class like ClientCallOutput, so a
 * tool's plain JSON answer is never mistaken for parts.
 */
export class ContentOutput {
  readonly content: ContentPart[];
  readonly structured?: JsonObject;
  /** The tool reported that it failed (MCP's `isError`): an `error` result that keeps these parts. */
  readonly isError?: true;
  /** The result's own `_meta` (MCP), without reserved keys: passed on with the result. */
  readonly meta?: JsonObject;

  constructor(content: ContentPart[], structured?: JsonObject, options: { isError?: boolean; meta?: JsonObject } = {}) {
    this.content = content;
    if (structured !== undefined) this.structured = structured;
    if (options.isError) this.isError = true;
    if (options.meta !== undefined) this.meta = options.meta;
  }
}
