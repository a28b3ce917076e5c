import { trimWhitespace } from '../../tools/apply-patch/seek-sequence.ts';
import { CallFormatError, asRecord, requireString } from './provider-format.ts';

/**
 * A Responses `apply_patch_call` operation as the equivalent apply_patch text, so it runs as one
 * governed call of the tenant's `apply_patch` tool:
 *
 *   create_file {path, diff}  →  *** Add File: path, then the diff's "+" lines
 *   update_file {path, diff}  →  *** Update File: path, then the diff's hunks (V4A)
 *   delete_file {path}        →  *** Delete File: path
 *
 * OpenAI's reference harness (applyDiff in the Agents SDK) joins a create_file diff's lines with
 * newlines, so a last "+" line with nothing after it stands for the file's final newline; an Add
 * File line always ends in a newline, so that last empty line is dropped (and a file is always
 * written with a final newline). A diff line that would read as a patch marker ("*** Delete
 * File: ...") would turn one operation into several: it is refused, as is a path with a line break.
 */
export function patchFromOperation(value: unknown, where: string): string {
  const operation = asRecord(value, where);
  const type = requireString(operation.type, `${where}.type`);
  const path = requireString(operation.path, `${where}.path`);
  if (/[\r\n]/.test(path)) throw new CallFormatError(`${where}.path must be one line (it holds a line break)`);
  switch (type) {
    case 'create_file': {
      const lines = diffLines(operation.diff, `${where}.diff`, (line) => line.startsWith('+'));
      if (lines.length > 0 && lines[lines.length - 1] === '+') lines.pop();
      return wrap(`*** Add File: ${path}`, lines);
    }
    case 'update_file':
      return wrap(`*** Update File: ${path}`, diffLines(operation.diff, `${where}.diff`, (line) => /^[ +-]/.test(line)));
    case 'delete_file':
      return wrap(`*** Delete File: ${path}`, []);
    default:
      throw new CallFormatError(`${where}.type must be create_file, update_file or delete_file (got ${JSON.stringify(type.slice(0, 40))})`);
  }
}

const MARKERS = ['*** Begin Patch', '*** End Patch', '*** Add File:', '*** Delete File:', '*** Update File:', '*** Move to:'];

/** The diff's lines (one final line break is the last line's end), each either a hunk line or not a marker. */
function diffLines(value: unknown, where: string, isHunkLine: (line: string) => boolean): string[] {
  if (typeof value !== 'string') throw new CallFormatError(`${where} must be a string`);
  const lines = value === '' ? [] : value.replace(/\r?\n$/, '').split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (isHunkLine(line)) continue;
    // Trimmed as the patch parser trims (Rust's whitespace: U+0085 too, which String#trim keeps).
    const marker = MARKERS.find((m) => trimWhitespace(line).startsWith(m));
    if (marker) throw new CallFormatError(`${where} line ${i + 1} reads as the patch marker "${marker}": a diff holds one file's hunk lines only`);
  }
  return lines;
}

function wrap(header: string, lines: string[]): string {
  return ['*** Begin Patch', header, ...lines, '*** End Patch'].join('\n');
}
