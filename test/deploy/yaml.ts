/*
 * The YAML that serverless.yml uses, and nothing more: block mappings and sequences (a sequence
 * item may open a mapping), plain and quoted scalars, flow sequences of scalars, comments.
 * Anything else (anchors, aliases, tags, block scalars, flow mappings, tabs, several documents)
 * is refused with its line number rather than misread, so the checks never pass on a file they
 * did not understand. No YAML parser is installed, and this one is enough for a test.
 */

export type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };

interface Line {
  indent: number;
  text: string;
  no: number;
}

// A key runs to the first colon followed by a space or the end of the line (so `Fn::GetAtt:` works).
const KEY = /^([^\s'"#\-[\]{}&*!|>%@`][^#]*?|'[^']*'|"[^"]*"):(?:\s+|$)/;

export function parseYaml(source: string): Yaml {
  const lines = tokenize(source);
  if (lines.length === 0) return null;
  const [value, next] = parseBlock(lines, 0, lines[0].indent);
  if (next < lines.length) throw failure(lines[next], 'unexpected indentation');
  return value;
}

function tokenize(source: string): Line[] {
  const lines: Line[] = [];
  source.split(/\r?\n/).forEach((raw, index) => {
    if (/^\t| \t/.test(raw.match(/^\s*/)?.[0] ?? '')) throw new Error(`line ${index + 1}: tabs are not YAML indentation`);
    const text = stripComment(raw).trimEnd();
    if (text.trim() === '') return;
    if (/^(---|\.\.\.)(\s|$)/.test(text)) throw new Error(`line ${index + 1}: several documents are not supported`);
    const indent = text.length - text.trimStart().length;
    lines.push({ indent, text: text.trimStart(), no: index + 1 });
  });
  return lines;
}

/** Drops a comment: `#` at the start or after a space, outside quotes. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
  }
  return line;
}

function isItem(line: Line): boolean {
  return line.text === '-' || line.text.startsWith('- ');
}

function parseBlock(lines: Line[], i: number, indent: number): [Yaml, number] {
  return isItem(lines[i]) ? parseSequence(lines, i, indent) : parseMapping(lines, i, indent);
}

function parseMapping(lines: Line[], start: number, indent: number): [Yaml, number] {
  const out: Record<string, Yaml> = {};
  let i = start;
  while (i < lines.length && lines[i].indent === indent && !isItem(lines[i])) {
    const line = lines[i];
    const match = KEY.exec(line.text);
    if (!match) throw failure(line, 'expected `key: value`');
    const key = String(scalar(match[1], line));
    if (Object.hasOwn(out, key)) throw failure(line, `duplicate key "${key}"`);
    const rest = line.text.slice(match[0].length);
    i++;
    if (rest) out[key] = value(rest, line);
    else if (i < lines.length && (lines[i].indent > indent || (lines[i].indent === indent && isItem(lines[i])))) [out[key], i] = parseBlock(lines, i, lines[i].indent);
    else out[key] = null;
  }
  if (i < lines.length && lines[i].indent > indent) throw failure(lines[i], 'unexpected indentation');
  return [out, i];
}

function parseSequence(lines: Line[], start: number, indent: number): [Yaml, number] {
  const out: Yaml[] = [];
  let i = start;
  while (i < lines.length && lines[i].indent === indent && isItem(lines[i])) {
    const line = lines[i];
    const rest = line.text.slice(1).trimStart();
    if (!rest) {
      i++;
      if (i >= lines.length || lines[i].indent <= indent) throw failure(line, 'empty sequence item');
      let item: Yaml;
      [item, i] = parseBlock(lines, i, lines[i].indent);
      out.push(item);
    } else if (KEY.test(rest)) {
      // `- key: value` opens a mapping whose keys line up with this first one.
      lines[i] = { indent: indent + (line.text.length - rest.length), text: rest, no: line.no };
      let item: Yaml;
      [item, i] = parseMapping(lines, i, lines[i].indent);
      out.push(item);
    } else {
      out.push(value(rest, line));
      i++;
    }
  }
  return [out, i];
}

function value(text: string, line: Line): Yaml {
  if (text.startsWith('[')) return flowSequence(text, line);
  return scalar(text, line);
}

function flowSequence(text: string, line: Line): Yaml[] {
  if (!text.endsWith(']')) throw failure(line, 'a flow sequence must end on its line');
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const items: string[] = [];
  let quote: string | undefined;
  let current = '';
  for (const c of inner) {
    if (quote) quote = c === quote ? undefined : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === ',') {
      items.push(current.trim());
      current = '';
      continue;
    } else if ('[]{}'.includes(c)) throw failure(line, 'nested flow collections are not supported');
    current += c;
  }
  items.push(current.trim());
  return items.map((item) => scalar(item, line));
}

function scalar(text: string, line: Line): Yaml {
  if (text.startsWith("'")) {
    if (!/^'([^']|'')*'$/.test(text)) throw failure(line, 'unterminated single-quoted string');
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      throw failure(line, 'unsupported double-quoted string');
    }
  }
  if (/^[&*!|>{%@`]/.test(text)) throw failure(line, `unsupported YAML: ${text}`);
  if (/^(true|false)$/.test(text)) return text === 'true';
  if (/^(null|~)$/.test(text)) return null;
  if (/^[-+]?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/:\s|\s#/.test(text)) throw failure(line, `ambiguous plain scalar: ${text}`);
  return text;
}

function failure(line: Line, message: string): Error {
  return new Error(`line ${line.no}: ${message}: ${line.text}`);
}
