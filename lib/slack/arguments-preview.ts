import type { JsonObject } from '../registry/json.ts';
import { LIMITS } from './block-kit.ts';
import { codeBlock, codeBlockCost, escapeMrkdwn } from './mrkdwn.ts';
import { maskSensitiveFields } from './sensitive.ts';

export const DEFAULT_PREVIEW_CHARS = 1500;

/** Room a section keeps for its title, the code fences and the truncation note. */
const SECTION_OVERHEAD = 200;

export interface ArgumentsPreviewOptions {
  /**
   * The arguments to show instead of `approval.arguments`: pass the copy already masked by the
   * tool's schema (`maskSensitive` in lib/audit/redact.ts, exact to the path). Preferred.
   */
  arguments?: JsonObject;
  /** Property names whose values are shown as MASK, at any depth (see sensitiveFieldNames). */
  sensitiveFields?: readonly string[];
  /** Characters of pretty-printed JSON shown before the preview is cut (default 1500). */
  previewChars?: number;
}

/**
 * The arguments as pretty JSON in a code block, sensitive values masked, cut with a note when
 * longer than `previewChars` — or than a section holds once escaped, whichever comes first.
 */
export function argumentsPreview(args: JsonObject, options: ArgumentsPreviewOptions = {}): string {
  const json = JSON.stringify(maskSensitiveFields(args, options.sensitiveFields ?? []), null, 2);
  const maxChars = Math.max(0, Math.floor(options.previewChars ?? DEFAULT_PREVIEW_CHARS));
  const shown = leadingPart(json, maxChars, LIMITS.sectionText - SECTION_OVERHEAD);
  const block = codeBlock(escapeMrkdwn(shown));
  if (shown.length === json.length) return `*Arguments*\n${block}`;
  const note = `_Arguments truncated: the first ${shown.length.toLocaleString('en-US')} of ${json.length.toLocaleString('en-US')} characters are shown._`;
  return `*Arguments*\n${block}\n${note}`;
}

/**
 * The longest start of `text` within `maxChars` characters whose escaped, fenced form fits in
 * `maxEscaped`. Walks code points, so a surrogate pair is never split.
 */
function leadingPart(text: string, maxChars: number, maxEscaped: number): string {
  if (text.length <= maxChars && text.length * 5 <= maxEscaped) return text;
  let end = 0;
  let escaped = 0;
  for (const char of text) {
    const cost = codeBlockCost(char);
    if (end + char.length > maxChars || escaped + cost > maxEscaped) break;
    end += char.length;
    escaped += cost;
  }
  return text.slice(0, end);
}
