import type { OutputLimits } from '../registry/definition.ts';
import { metadataOf, type ContentPart, type ResourceLinkPart } from '../registry/content-parts.ts';

/** What a tool without limits of its own gets. */
export const DEFAULT_OUTPUT_LIMITS: Required<Pick<OutputLimits, 'max_chars' | 'mode'>> = {
  max_chars: 50_000,
  mode: 'head_tail',
};

export function truncateChars(output: string, maxChars: number, mode: 'head_tail' | 'tail'): string {
  if (output.length <= maxChars) return output;
  const removed = output.length - maxChars;
  if (mode === 'tail') {
    return `[WARNING: Tool output was truncated. First ${removed} characters were removed. The full output is available in the event stream.]\n\n${output.slice(-maxChars)}`;
  }
  const head = Math.floor(maxChars / 2);
  const tail = maxChars - head;
  return (
    `${output.slice(0, head)}\n\n[WARNING: Tool output was truncated. ${removed} characters were removed from the middle. ` +
    'The full output is available in the event stream. If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n' +
    output.slice(output.length - tail)
  );
}

export function truncateLines(output: string, maxLines: number): string {
  const lines = output.split('\n');
  if (lines.length <= maxLines) return output;
  const head = Math.floor(maxLines / 2);
  const tail = maxLines - head;
  const omitted = lines.length - head - tail;
  return `${lines.slice(0, head).join('\n')}\n[... ${omitted} lines omitted ...]\n${lines.slice(lines.length - tail).join('\n')}`;
}

/** Characters first (a few huge lines are the real danger), then lines. */
export function truncateOutput(output: string, limits: OutputLimits = {}): { content: string; truncated: boolean } {
  const maxChars = limits.max_chars ?? DEFAULT_OUTPUT_LIMITS.max_chars;
  const mode = limits.mode ?? DEFAULT_OUTPUT_LIMITS.mode;
  let content = truncateChars(output, maxChars, mode);
  if (limits.max_lines !== undefined) content = truncateLines(content, limits.max_lines);
  return { content, truncated: content !== output };
}

/**
 * Per-item caps that share a budget: items that fit their fair share keep everything, the
 * budget they leave is split evenly among the longer ones (short parts stay whole).
 */
export function shareBudget(sizes: number[], budget: number): number[] {
  const caps = sizes.slice();
  const order = sizes.map((size, i) => ({ size, i })).sort((a, b) => a.size - b.size);
  let remaining = budget;
  for (const [k, { size, i }] of order.entries()) {
    const fair = Math.max(1, Math.floor(remaining / (order.length - k)));
    caps[i] = Math.min(size, fair);
    remaining = Math.max(0, remaining - caps[i]);
  }
  return caps;
}

/**
 * The tool's limits applied to the text of content parts (text parts, embedded text resources
 * and resource links' URI, name and description) as one budget; images, audio and other binary
 * parts are left alone (they are size-capped elsewhere: lib/dispatch/content-check.ts). A link
 * whose text does not fit its share becomes a text part of its cut text: a link's fields are
 * text the model reads, and would otherwise carry any amount past max_chars.
 */
export function truncateTextParts(parts: ContentPart[], limits: OutputLimits = {}): { parts: ContentPart[]; truncated: boolean } {
  const maxChars = limits.max_chars ?? DEFAULT_OUTPUT_LIMITS.max_chars;
  const mode = limits.mode ?? DEFAULT_OUTPUT_LIMITS.mode;
  const slots = parts.flatMap((part, i) => (textOf(part) === undefined ? [] : [i]));
  let texts = slots.map((i) => textOf(parts[i]!)!);
  const charCaps = shareBudget(texts.map((t) => t.length), maxChars);
  texts = texts.map((text, k) => truncateChars(text, charCaps[k]!, mode));
  if (limits.max_lines !== undefined) {
    const lineCaps = shareBudget(texts.map((t) => t.split('\n').length), limits.max_lines);
    texts = texts.map((text, k) => truncateLines(text, lineCaps[k]!));
  }
  let truncated = false;
  const out = parts.slice();
  slots.forEach((i, k) => {
    if (texts[k] === textOf(parts[i]!)) return;
    truncated = true;
    out[i] = withText(parts[i]!, texts[k]!);
  });
  return { parts: out, truncated };
}

function textOf(part: ContentPart): string | undefined {
  if (part.type === 'text') return part.text;
  if (part.type === 'resource' && 'text' in part.resource) return part.resource.text;
  if (part.type === 'resource_link') return linkText(part);
  return undefined;
}

/** A link's fields as text (what it shows a reader). */
function linkText(link: ResourceLinkPart): string {
  return [`[resource ${link.uri}]`, link.name, link.title, link.description, link.mimeType].filter((field) => field !== undefined).join('\n');
}

/** The part with its text cut; its annotations and `_meta` stay with it (a cut link becomes text that keeps them). */
function withText(part: ContentPart, text: string): ContentPart {
  if (part.type === 'resource' && 'text' in part.resource) return { ...part, resource: { ...part.resource, text } };
  return { type: 'text', text, ...metadataOf(part) };
}
