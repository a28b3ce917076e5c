import type { JsonObject } from './json.ts';

/**
 * One piece of a tool's output, shaped like MCP's ContentBlock (without `annotations` and
 * `_meta`, which toolgate does not carry): text, base64 image or audio, an embedded resource
 * (text or base64 blob) or a link to a resource.
 */
export type ContentPart = TextPart | ImagePart | AudioPart | EmbeddedResourcePart | ResourceLinkPart;

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image';
  /** Standard base64. */
  data: string;
  mimeType: string;
}

export interface AudioPart {
  type: 'audio';
  /** Standard base64. */
  data: string;
  mimeType: string;
}

export interface EmbeddedResourcePart {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };
}

export interface ResourceLinkPart {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

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
 * the tool has them, structured results (MCP's `structuredContent`, a JSON object). Tagged by
 * class like ClientCallOutput, so a tool's plain JSON answer is never mistaken for parts.
 */
export class ContentOutput {
  readonly content: ContentPart[];
  readonly structured?: JsonObject;

  constructor(content: ContentPart[], structured?: JsonObject) {
    this.content = content;
    if (structured !== undefined) this.structured = structured;
  }
}
