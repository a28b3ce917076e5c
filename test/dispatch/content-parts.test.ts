import { createHash } from 'node:crypto';
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ResponseFunctionCallOutputItemList, ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { auditedContent } from '../../lib/audit/content-digest.ts';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { checkContent, MAX_PART_BYTES, MAX_PARTS } from '../../lib/dispatch/content-check.ts';
import { anthropicToolResultContent } from '../../lib/dispatch/formats/anthropic-content.ts';
import { PROVIDER_FORMATS } from '../../lib/dispatch/formats/index.ts';
import { responsesFunctionCallOutput } from '../../lib/dispatch/formats/responses-content.ts';
import { storableResult, STORED_BINARY_CHARS } from '../../lib/idempotency/stored-result.ts';
import { ContentOutput, type ContentPart } from '../../lib/registry/content-parts.ts';
import { ContentShapeError, readToolResultBody } from '../../lib/registry/content-read.ts';
import { encodeJson } from '../../lib/stores/dynamodb/json.ts';
import { truncateTextParts } from '../../lib/tools/truncate.ts';
import { PNG_1X1 } from '../helpers/content.ts';

const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]).toString('base64');
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');
/** Random bytes: base64 of them barely compresses, like a real screenshot. */
const pngOf = (bytes: number) => Buffer.concat([Buffer.from(PNG_1X1, 'base64').subarray(0, 8), Buffer.from(Array.from({ length: bytes - 8 }, () => Math.floor(Math.random() * 256)))]).toString('base64');

const checked = (content: ContentPart[], structured?: Record<string, never> | { [k: string]: number }) => checkContent(new ContentOutput(content, structured));
const texts = (parts: ContentPart[]) => parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);

function resultWith(parts: ContentPart[], structured?: ToolResult['structured_content']): ToolResult {
  return { call_id: 'c1', name: 'shot', status: 'ok', is_error: false, content: 'rendered', content_parts: parts, ...(structured ? { structured_content: structured } : {}), truncated: false, duration_ms: 1 };
}

describe('checking content parts from any source', () => {
  it('keeps well-formed parts as they are', () => {
    const parts: ContentPart[] = [
      { type: 'text', text: 'a screenshot' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: PDF } },
      { type: 'resource_link', uri: 'https://x.example/r/1', name: 'r1' },
    ];
    expect(checked(parts, { n: 1 })).toEqual({ parts, structured: { n: 1 }, dropped: 0 });
  });

  it('drops a huge image by its length alone, with a note saying why', () => {
    const huge = 'A'.repeat(Math.ceil((MAX_PART_BYTES + 10) / 3) * 4);
    const out = checked([{ type: 'image', data: huge, mimeType: 'image/png' }]);
    expect(out.dropped).toBe(1);
    expect(texts(out.parts)).toEqual([`[image/png image part dropped: ${Math.floor((huge.length * 3) / 4)} bytes, more than the 4 MiB a part may hold]`]);
  });

  it('drops invalid base64, a mislabelled image, HTML called an image, SVG, and audio that is not audio', () => {
    const out = checked([
      { type: 'image', data: 'not base64!', mimeType: 'image/png' },
      { type: 'image', data: JPEG_HEAD, mimeType: 'image/png' },
      { type: 'image', data: Buffer.from('<script>alert(1)</script>').toString('base64'), mimeType: 'text/html' },
      { type: 'image', data: Buffer.from('<svg onload="x()"/>').toString('base64'), mimeType: 'image/svg+xml' },
      { type: 'audio', data: PNG_1X1, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///x', blob: '@@@@' } },
      { type: 'image', data: JPEG_HEAD, mimeType: 'image/jpeg' },
    ]);
    expect(out.dropped).toBe(6);
    expect(texts(out.parts)).toEqual([
      '[image/png image part dropped: its data is not standard base64]',
      '[image/png image part dropped: its bytes are not image/png]',
      '[text/html image part dropped: "text/html" is not an image media type]',
      '[image/svg+xml image part dropped: SVG images are not passed on (they can carry script)]',
      '[image/png audio part dropped: "image/png" is not an audio media type]',
      '[resource file:///x (blob) dropped: its data is not standard base64]',
    ]);
    expect(out.parts[6]).toEqual({ type: 'image', data: JPEG_HEAD, mimeType: 'image/jpeg' });
  });

  it('keeps at most 256 parts and 8 MiB of binary parts per result', () => {
    const many = checked(Array.from({ length: 3000 }, (_, i) => ({ type: 'text' as const, text: `part ${i}` })));
    expect(many.parts).toHaveLength(MAX_PARTS + 1);
    expect(many.parts.at(-1)).toEqual({ type: 'text', text: `[${3000 - MAX_PARTS} more content parts dropped: a result holds at most ${MAX_PARTS}]` });
    const threeMiB = pngOf(3 * 1024 * 1024);
    const big = checked([1, 2, 3].map(() => ({ type: 'image' as const, data: threeMiB, mimeType: 'image/png' })));
    expect(big.parts.map((p) => p.type)).toEqual(['image', 'image', 'text']);
    expect(texts(big.parts)[0]).toBe("[image/png image part dropped: the result's binary parts would exceed 8 MiB]");
  });

  it('drops structured content beyond 256 KiB of JSON', () => {
    const out = checkContent(new ContentOutput([], { blob: 'x'.repeat(300 * 1024) }));
    expect(out.structured).toBeUndefined();
    expect(texts(out.parts)[0]).toMatch(/^\[structured content of \d+ characters dropped: at most 262144 are kept\]$/);
  });
});

describe('reading a body that claims to be content parts', () => {
  it('reads MCP CallToolResult shapes, keeping annotations and _meta (an empty _meta is none)', () => {
    const read = readToolResultBody({ content: [{ type: 'text', text: 'hi', annotations: { audience: ['user'] } }, { type: 'resource_link', uri: 'u', name: 'n', size: 3, _meta: {} }], structuredContent: { a: 1 }, isError: false });
    expect(read.output.content).toEqual([{ type: 'text', text: 'hi', annotations: { audience: ['user'] } }, { type: 'resource_link', uri: 'u', name: 'n', size: 3 }]);
    expect(read.output.structured).toEqual({ a: 1 });
  });

  it('names the field that is wrong', () => {
    const problem = (body: unknown) => { try { readToolResultBody(body); return 'read'; } catch (error) { return (error as ContentShapeError).message; } };
    expect(problem([])).toMatch(/^the body must be a JSON object/);
    expect(problem({ content: 'hi' })).toBe('content must be an array of content parts');
    expect(problem({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 5, mimeType: 'image/png' }] })).toBe('content[1].data must be a string');
    expect(problem({ content: [{ type: 'video' }] })).toBe('content[0].type must be one of text, image, audio, resource, resource_link (got "video")');
    expect(problem({ content: [{ type: 'resource', resource: { uri: 'x' } }] })).toBe('content[0].resource must have "text" (a string) or "blob" (base64)');
    expect(problem({ content: [], structuredContent: [1] })).toBe('structuredContent must be a JSON object');
    expect(problem({ content: [{ type: 'resource_link', uri: 'u', name: 'n', size: -1 }] })).toBe('content[0].size must be a whole number of bytes');
  });
});

describe('truncation of content parts', () => {
  it('cuts text parts under one budget and leaves images whole', () => {
    const image: ContentPart = { type: 'image', data: PNG_1X1, mimeType: 'image/png' };
    const { parts, truncated } = truncateTextParts([{ type: 'text', text: 'short' }, image, { type: 'text', text: 'y'.repeat(5000) }], { max_chars: 1000 });
    expect(truncated).toBe(true);
    expect(parts[0]).toEqual({ type: 'text', text: 'short' });
    expect(parts[1]).toBe(image);
    expect(texts(parts)[1]).toMatch(/^y{497}\n\n\[WARNING: Tool output was truncated\. 4005 characters were removed/);
    expect(truncateTextParts([{ type: 'text', text: 'a\nb\nc\nd' }, image], { max_lines: 2 }).parts[0]).toEqual({ type: 'text', text: 'a\n[... 2 lines omitted ...]\nd' });
  });

  it('leaves content within the limits untouched', () => {
    const parts: ContentPart[] = [{ type: 'text', text: 'a' }, { type: 'resource', resource: { uri: 'file:///n', text: 'notes' } }];
    expect(truncateTextParts(parts, { max_chars: 10 })).toEqual({ parts, truncated: false });
  });
});

describe('audit of content parts', () => {
  it('keeps the SHA-256 and size of binary parts, never their bytes', async () => {
    const audited = await auditedContent({ parts: [{ type: 'text', text: 'caption' }, { type: 'image', data: PNG_1X1, mimeType: 'image/png' }], structured: { w: 1 } });
    const bytes = Buffer.from(PNG_1X1, 'base64');
    expect(audited).toEqual({
      content_parts: [{ type: 'text', chars: 7 }, { type: 'image', mimeType: 'image/png', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }],
      structured_content: { w: 1 },
    });
    expect(JSON.stringify(audited)).not.toContain(PNG_1X1.slice(0, 20));
  });
});

describe('a stored result for replay', () => {
  it('keeps small binary parts and replaces big ones by a note, so the record always fits a DynamoDB item', async () => {
    const small: ContentPart = { type: 'image', data: PNG_1X1, mimeType: 'image/png' };
    const big: ContentPart = { type: 'image', data: pngOf(MAX_PART_BYTES), mimeType: 'image/png' };
    const stored = storableResult(resultWith([{ type: 'text', text: 'x'.repeat(50_000) }, big, small, big], { n: 1 }));
    expect(stored.content_parts![2]).toBe(small);
    expect(stored.content_parts!.filter((p) => p.type === 'image')).toHaveLength(1);
    expect(texts(stored.content_parts!)[1]).toBe(`[image/png image, ${MAX_PART_BYTES} bytes base64] [not kept for replay: a stored result keeps at most ${STORED_BINARY_CHARS / 1024} KiB of binary content; call the tool again to get it]`);
    // The whole record as DynamoDB stores it (gzipped above 64 KiB): under its 380 KiB payload cap.
    await expect(encodeJson({ args_hash: 'h', tool: 'shot', result: stored }, 'record')).resolves.toBeDefined();
    await expect(encodeJson({ result: resultWith([big]) }, 'record')).rejects.toThrow(/more than a DynamoDB item can hold/);
  });
});

describe('content parts in each provider format', () => {
  const image: ContentPart = { type: 'image', data: PNG_1X1, mimeType: 'image/png' };
  const audio: ContentPart = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
  const pdf: ContentPart = { type: 'resource', resource: { uri: 'file:///reports/q1.pdf', mimeType: 'application/pdf', blob: PDF } };
  const result = resultWith([{ type: 'text', text: 'the page' }, image, audio, pdf]);

  it('Anthropic: image and document blocks in tool_result content, a note for audio', () => {
    const content = anthropicToolResultContent(result);
    const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: 'c1', content };
    expect(block.content).toEqual([
      { type: 'text', text: 'the page' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } },
      { type: 'text', text: '[audio/wav audio, 4 bytes base64] [not sent: Anthropic tool results take PNG, JPEG, GIF and WebP images and PDF documents only]' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
    ]);
    expect(anthropicToolResultContent(resultWith([audio], { ok: 1 }))).toBe('[audio/wav audio, 4 bytes base64] [not sent: Anthropic tool results take PNG, JPEG, GIF and WebP images and PDF documents only]\n{"ok":1}');
  });

  it('Responses: input_text, input_image and input_file items', () => {
    const output = responsesFunctionCallOutput(result);
    const typed: ResponseFunctionCallOutputItemList = output as ResponseFunctionCallOutputItemList;
    const item: ResponseInputItem = { type: 'function_call_output', call_id: 'c1', output: typed };
    expect(item.output).toEqual([
      { type: 'input_text', text: 'the page' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG_1X1}` },
      { type: 'input_text', text: '[audio/wav audio, 4 bytes base64] [not sent: Responses tool output takes PNG, JPEG, GIF and WebP images and PDF files only]' },
      { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'q1.pdf' },
    ]);
    expect(responsesFunctionCallOutput({ ...result, content_parts: undefined, content: 'plain' })).toBe('plain');
    expect(responsesFunctionCallOutput(resultWith([{ type: 'text', text: 'x' }], { n: 1 }))).toBe('x');
  });

  it('chat-completions and Gemini: text with a note per part not sent', () => {
    const [tool] = PROVIDER_FORMATS.openai.writeResults([result], []) as Array<{ content: string }>;
    expect(tool.content).toBe(
      'the page\n[image/png image, 70 bytes base64] [not sent: chat-completions tool messages carry text only]\n[audio/wav audio, 4 bytes base64] [not sent: chat-completions tool messages carry text only]\n' +
        '[resource file:///reports/q1.pdf (application/pdf), 15 bytes base64] [not sent: chat-completions tool messages carry text only]',
    );
    const [gemini] = PROVIDER_FORMATS.gemini.writeResults([result], [{ call_id: 'c1', name: 'shot' }]) as Array<{ parts: Array<{ functionResponse: { response: { output: string } } }> }>;
    expect(gemini.parts[0].functionResponse.response.output).toContain('[image/png image, 70 bytes base64] [not sent: function responses carry text only here]');
  });
});
