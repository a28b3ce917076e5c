import { ToolError } from '../../registry/errors.ts';
import { displayLines } from './read-file.ts';
import { plural } from './wording.ts';

/**
 * `text` inserted as whole lines after line `after` of `file` (0 = at the top), counting lines
 * as read_file numbers them. The inserted lines end with a line break, written the file's way
 * (CRLF when the file uses it); a last line without one gets one first, so the text starts on
 * its own line. A byte-order mark stays first.
 */
export function insertLines(path: string, file: string, after: number, text: string): string {
  const total = displayLines(file).length;
  if (after > total) {
    throw new ToolError(
      'error',
      `insert_line ${after} is past the end of ${path}, which has ${plural(total, 'line')}. ` +
        `Use a line number from 0 (insert at the top) to ${total} (insert after the last line).`,
    );
  }
  const lineBreak = file.includes('\r\n') ? '\r\n' : '\n';
  const lines = lineBreak === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text;
  const inserted = lines.endsWith('\n') ? lines : lines + lineBreak;
  const at = offsetAfterLine(file, after);
  const needsBreak = at === file.length && file.length > 0 && !file.endsWith('\n') && after > 0;
  return file.slice(0, at) + (needsBreak ? lineBreak : '') + inserted + file.slice(at);
}

/** Where line `line` ends (after its line break); 0 is the start of the text, after a BOM. */
function offsetAfterLine(file: string, line: number): number {
  let at = file.startsWith('\uFEFF') ? 1 : 0;
  for (let n = 0; n < line; n++) {
    const lineEnd = file.indexOf('\n', at);
    at = lineEnd === -1 ? file.length : lineEnd + 1;
  }
  return at;
}
