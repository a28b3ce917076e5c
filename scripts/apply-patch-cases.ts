/**
 * Generated apply_patch cases for the differential test against Codex: a small tree of files
 * and a patch over it. Most patches start from a real edit of a generated file (so they are
 * well formed and apply), then some get one of the mistakes models typically make, or one of
 * the corners where toolgate and Codex used to part (see issue 11). The same seed gives the same
 * cases, so a disagreement can be replayed by its id.
 *
 * Paths in a patch may hold `{ROOT}` (the folder the patch is applied in) or `{BASE}` (its parent,
 * outside the root): each runner puts in its own folder.
 */
import { prng, type Prng } from '../test/helpers/prng.ts';

export interface PatchCase {
  /** The case's number: generateCase(seed, id) gives it again. */
  id: number;
  /** What the generator did, e.g. `update/wrong-context`; the first part is the family. */
  kind: string;
  /** Files under the root, by `/`-separated path; a path starting with `../` is in the base, outside the root. */
  files: Record<string, string | Uint8Array>;
  /** Empty folders under the root. */
  folders: string[];
  patch: string;
}

// ---------------------------------------------------------------------------------------------
// File contents

const NAMES = ['alpha', 'beta', 'count', 'item', 'total', 'name', 'value', 'result'];

/** Few distinct lines, so the same line often occurs twice and a hunk can match in two places. */
function codeLine(r: Prng): string {
  const indent = r.pick(['', '', '    ', '        ', '\t']);
  const name = r.pick(NAMES);
  const n = r.int(4);
  return r.pick([
    `${indent}const ${name} = ${n};`,
    `${indent}return ${name};`,
    `${indent}}`,
    '}',
    '',
    '',
    `${indent}// ${name} - ${r.pick(NAMES)}`,
    `${indent}if (${name} > ${n}) {`,
    `def ${name}():`,
    `    print("${name}")`,
    `${indent}say('${name}');`,
  ]);
}

/** Typographic punctuation Codex's last matching pass maps to ASCII, and odd spaces. */
const FANCY: Record<string, string[]> = {
  '-': ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212'],
  "'": ['\u2018', '\u2019', '\u201A', '\u201B'],
  '"': ['\u201C', '\u201D', '\u201E', '\u201F'],
  ' ': ['\u00A0', '\u2002', '\u2003', '\u2009', '\u202F', '\u205F', '\u3000'],
};

function fancify(r: Prng, line: string): string {
  return [...line].map((ch) => (FANCY[ch] !== undefined && r.chance(0.5) ? r.pick(FANCY[ch]) : ch)).join('');
}

function decorate(r: Prng, line: string): string {
  if (r.chance(0.06)) line += r.pick([' ', '  ', '\t', ' \t']);
  if (r.chance(0.05)) line = fancify(r, line);
  return line;
}

function fileLines(r: Prng, min = 0): string[] {
  const count = min + r.int(14);
  return Array.from({ length: count }, () => decorate(r, codeLine(r)));
}

type Ending = '\n' | '\r\n' | '\r';

/** The file's text: mostly LF; sometimes CRLF, mixed, no final newline, or a final blank line. */
function fileText(r: Prng, lines: readonly string[]): string {
  if (lines.length === 0) return r.pick(['', '', '\n']);
  const style = r.int(20);
  const endings: Ending[] = lines.map(() => {
    if (style === 0) return r.pick<Ending>(['\n', '\r\n']);
    if (style <= 2) return '\r\n';
    if (style === 3 && r.chance(0.2)) return '\r';
    return '\n';
  });
  let text = lines.map((line, i) => line + endings[i]).join('');
  if (r.chance(0.15)) text = text.slice(0, -endings[endings.length - 1].length);
  else if (r.chance(0.15)) text += endings[endings.length - 1];
  if (r.chance(0.02)) text = `\uFEFF${text}`;
  return text;
}

/** How Codex sees a file's lines: split on `\n`, a trailing `\r` kept, no line after a final newline. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Hunks from real edits

interface Hunk {
  header: string | null;
  lines: string[];
  endOfFile: boolean;
}

interface Region {
  start: number;
  deleted: number;
}

/** Non-overlapping edit regions in file order. */
function regions(r: Prng, length: number, count: number): Region[] {
  const starts = new Set<number>();
  for (let i = 0; i < count; i++) starts.add(r.int(length + 1));
  const out: Region[] = [];
  let floor = 0;
  for (const start of [...starts].sort((a, b) => a - b)) {
    if (start < floor) continue;
    const deleted = Math.min(r.int(3), length - start);
    out.push({ start, deleted });
    floor = start + deleted + 1;
  }
  return out;
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function editHunk(r: Prng, lines: readonly string[], region: Region, lowest: number): Hunk {
  const before = Math.min(r.pick([0, 1, 3, 3, 3]), region.start - lowest);
  const afterStart = region.start + region.deleted;
  const after = Math.min(r.pick([0, 1, 3, 3, 3]), lines.length - afterStart);
  const context = (line: string) => ` ${stripCr(line)}`;
  const added = r.int(region.deleted === 0 ? 3 : 4);
  const body = [
    ...lines.slice(region.start - before, region.start).map(context),
    ...lines.slice(region.start, afterStart).map((line) => `-${stripCr(line)}`),
    ...Array.from({ length: added + (region.deleted === 0 && added === 0 ? 1 : 0) }, () => `+${decorate(r, codeLine(r))}`),
    ...lines.slice(afterStart, afterStart + after).map(context),
  ];
  const headerLine = region.start - before > 0 ? stripCr(lines[r.int(region.start - before)]) : null;
  const header = headerLine !== null && headerLine.trim() !== '' && r.chance(0.3) ? `@@ ${headerLine}` : '@@';
  const endOfFile = afterStart + after === lines.length && r.chance(0.5);
  return { header, lines: body, endOfFile };
}

function renderHunks(hunks: readonly Hunk[]): string[] {
  return hunks.flatMap((hunk) => [...(hunk.header === null ? [] : [hunk.header]), ...hunk.lines, ...(hunk.endOfFile ? ['*** End of File'] : [])]);
}

function wrap(body: readonly string[]): string {
  return ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Cases

const PATHS = ['a.txt', 'src/main.ts', 'lib/util.py', 'notes.md', 'deep/er/file.txt'];

interface Draft {
  kind: string;
  files: Record<string, string | Uint8Array>;
  folders: string[];
  body: string[];
  /** A mistake may replace the whole text (markers, heredoc, line endings). */
  patch?: string;
}

/** A file and a well-formed update of it, with 1-3 hunks. */
function updateDraft(r: Prng): Draft & { path: string; lines: string[]; hunks: Hunk[] } {
  const path = r.pick(PATHS);
  const text = fileText(r, fileLines(r, 1));
  const lines = linesOf(text);
  const hunks: Hunk[] = [];
  let lowest = 0;
  for (const region of regions(r, lines.length, 1 + r.int(3))) {
    hunks.push(editHunk(r, lines, region, lowest));
    lowest = region.start + region.deleted;
  }
  if (hunks.length === 0) hunks.push({ header: '@@', lines: ['+added'], endOfFile: false });
  if (r.chance(0.2)) hunks[0].header = null;
  return { kind: 'update', path, lines, hunks, files: { [path]: text }, folders: [], body: [] };
}

type Mistake = (r: Prng, draft: ReturnType<typeof updateDraft>) => string;

function pickIndex(r: Prng, lines: readonly string[], test: (line: string) => boolean): number {
  const indices = lines.map((line, i) => (test(line) ? i : -1)).filter((i) => i >= 0);
  return indices.length === 0 ? -1 : r.pick(indices);
}

/** Mistakes and corners; each names itself and edits the draft's hunks or text. */
const MISTAKES: Record<string, Mistake> = {
  none: () => 'well-formed',
  'wrong-context': (r, d) => {
    const hunk = r.pick(d.hunks);
    const i = pickIndex(r, hunk.lines, (line) => line.startsWith(' ') || line.startsWith('-'));
    if (i < 0) return 'wrong-context(none)';
    hunk.lines[i] = `${hunk.lines[i]}${r.pick(['x', ' // changed', ';'])}`;
    return 'wrong-context';
  },
  'whitespace-differs': (r, d) => {
    const hunk = r.pick(d.hunks);
    const i = pickIndex(r, hunk.lines, (line) => line.startsWith(' ') || line.startsWith('-'));
    if (i < 0) return 'whitespace-differs(none)';
    const line = hunk.lines[i];
    hunk.lines[i] = r.pick([
      `${line}  `,
      `${line[0]}${line.slice(1).trimStart()}`,
      `${line[0]}  ${line.slice(1)}`,
      `${line[0]}${line.slice(1).replace(/\t/g, '    ')}`,
      `${line[0]}${line.slice(1).trimEnd()}`,
    ]);
    return 'whitespace-differs';
  },
  'ascii-for-unicode': (r, d) => {
    // The file gets typographic punctuation where the patch keeps ASCII (or the reverse).
    const text = d.files[d.path] as string;
    if (r.chance(0.5)) d.files[d.path] = fancify(r, text);
    else for (const hunk of d.hunks) hunk.lines = hunk.lines.map((line) => line[0] + fancify(r, line.slice(1)));
    return 'ascii-for-unicode';
  },
  'drop-context-space': (r, d) => {
    const hunk = r.pick(d.hunks);
    const i = pickIndex(r, hunk.lines, (line) => line.startsWith(' '));
    if (i < 0) return 'drop-context-space(none)';
    hunk.lines[i] = hunk.lines[i].slice(1);
    return 'drop-context-space';
  },
  'missing-header': (r, d) => {
    if (d.hunks.length < 2) return 'missing-header(first)';
    d.hunks[1 + r.int(d.hunks.length - 1)].header = null;
    return 'missing-header';
  },
  'blank-line-at-hunk-start': (r, d) => {
    r.pick(d.hunks).lines.unshift('');
    return 'blank-line-at-hunk-start';
  },
  'blank-lines-between-hunks': (r, d) => {
    for (const hunk of d.hunks) if (r.chance(0.6)) hunk.lines.push(r.pick(['', ' ', '\t']));
    return 'blank-lines-between-hunks';
  },
  'header-trailing-space': (r, d) => {
    const hunk = r.pick(d.hunks);
    hunk.header = `${hunk.header ?? '@@'}${r.pick([' ', '  ', '\t'])}`;
    return 'header-trailing-space';
  },
  'end-of-file-trailing-space': (r, d) => {
    const hunk = d.hunks[d.hunks.length - 1];
    hunk.endOfFile = false;
    hunk.lines.push(`*** End of File${r.pick([' ', '  ', '\t'])}`);
    return 'end-of-file-trailing-space';
  },
  'end-of-file-misplaced': (r, d) => {
    r.pick(d.hunks).endOfFile = true;
    return 'end-of-file-misplaced';
  },
  'end-of-file-overlapping': (r, d) => {
    // An extra last hunk that ends the file and re-states lines an earlier hunk already changed.
    const tail = d.lines.slice(-1 - r.int(3)).map((line) => ` ${stripCr(line)}`);
    d.hunks.push({ header: '@@', lines: [...tail, `+${codeLine(r)}`], endOfFile: true });
    return 'end-of-file-overlapping';
  },
  'final-blank-line': (r, d) => {
    // The file ends with a blank line; the hunk adds next to it.
    const lines = [...d.lines.filter((line) => line !== ''), ''];
    d.files[d.path] = `${lines.join('\n')}\n`;
    const last = lines.length - 2;
    const added = `+${codeLine(r)}`;
    const hunkLines = r.pick([
      [` ${lines[last] ?? ''}`, added, ' '],
      [` ${lines[last] ?? ''}`, ' ', added],
      [` ${lines[last] ?? ''}`, added],
      [' ', added],
      [`-${lines[last] ?? ''}`, added, ' '],
    ]);
    d.hunks = [{ header: r.pick(['@@', null]), lines: hunkLines, endOfFile: r.chance(0.4) }];
    return 'final-blank-line';
  },
  'pure-addition-then-hunk': (r, d) => {
    d.hunks.splice(r.int(d.hunks.length), 0, { header: '@@', lines: [`+${codeLine(r)}`], endOfFile: false });
    return 'pure-addition-then-hunk';
  },
  'hunks-out-of-order': (r, d) => {
    if (d.hunks.length < 2) return 'hunks-out-of-order(one)';
    d.hunks.reverse();
    for (const hunk of d.hunks) if (hunk.header === null) hunk.header = '@@';
    return 'hunks-out-of-order';
  },
  'duplicate-hunk': (r, d) => {
    const hunk = r.pick(d.hunks);
    d.hunks.push({ ...hunk, header: hunk.header ?? '@@', lines: [...hunk.lines] });
    return 'duplicate-hunk';
  },
  'header-not-in-file': (r, d) => {
    r.pick(d.hunks).header = `@@ ${r.pick(['class Missing', 'def nowhere():', 'function gone() {'])}`;
    return 'header-not-in-file';
  },
  'random-line-edit': (r, d) => {
    const hunk = r.pick(d.hunks);
    if (hunk.lines.length === 0) return 'random-line-edit(none)';
    const i = r.int(hunk.lines.length);
    const op = r.int(5);
    if (op === 0) hunk.lines.splice(i, 1);
    else if (op === 1) hunk.lines.splice(i, 0, hunk.lines[i]);
    else if (op === 2) hunk.lines[i] = r.pick([' ', '-', '+']) + hunk.lines[i].slice(1);
    else if (op === 3) hunk.lines.splice(i, 0, r.pick(['@@', '***', '*** End of File', '#', 'x', '@', ' @@']));
    else hunk.lines[i] = `${hunk.lines[i]}\r`;
    return `random-line-edit/${['drop', 'duplicate', 'prefix', 'marker', 'cr'][op]}`;
  },
};

/** Mistakes on the patch's text as a whole: markers, paths, line endings. */
const TEXT_MISTAKES: Record<string, (r: Prng, body: string[], d: ReturnType<typeof updateDraft>) => string | null> = {
  'tab-before-path': (r, body) => {
    body[0] = body[0].replace(': ', r.pick([':\t', ': \t', ':  ']));
    return null;
  },
  'marker-padding': (r, body) => {
    const i = pickIndex(r, body, (line) => line.startsWith('*** '));
    if (i >= 0) body[i] = `${r.pick(['', ' ', '\t'])}${body[i]}${r.pick([' ', '  ', '\t'])}`;
    return null;
  },
  'path-trailing-space': (r, body) => {
    body[0] = `${body[0]}${r.pick([' ', '\t'])}`;
    return null;
  },
  'no-begin': (_r, body) => [...body, '*** End Patch'].join('\n'),
  'no-end': (_r, body) => ['*** Begin Patch', ...body].join('\n'),
  'heredoc': (r, body) => [r.pick(['<<EOF', "<<'EOF'", '<<"EOF"']), '*** Begin Patch', ...body, '*** End Patch', 'EOF'].join('\n'),
  'crlf-patch': (_r, body) => `${wrap(body).split('\n').join('\r\n')}\r\n`,
  'surrounding-space': (r, body) => `${r.pick(['\n', '  ', '\n\n'])}${wrap(body)}${r.pick(['\n', '\n\n', '  \n'])}`,
  'lowercase-marker': (_r, body) => wrap([body[0].replace('Update File', 'update file'), ...body.slice(1)]),
  'doubled-end-patch': (r, body) => wrap([...body, ...(r.chance(0.7) ? ['*** End Patch'] : ['*** End Patch', '*** End Patch'])]),
  'end-patch-in-middle': (r, body) => wrap([...body.slice(0, 1 + r.int(body.length)), '*** End Patch', ...body.slice(1 + r.int(body.length))]),
  'second-operation': (r, body) => wrap([...body, ...(r.chance(0.5) ? [''] : []), r.pick(['*** Add File: extra.txt', '*** Delete File: extra.txt', '*** Delete File: a.txt']), ...(r.chance(0.5) ? ['+extra'] : [])]),
  'move-after-hunk': (_r, body) => wrap([...body, '*** Move to: later.txt']),
  'tab-inside-path': (r, body) => {
    body[0] = body[0].replace(/\/|\./, (m) => r.pick([`\t${m}`, `${m}\t`]));
    return null;
  },
};

function updateCase(r: Prng): Draft {
  const draft = updateDraft(r);
  const mistakeNames = Object.keys(MISTAKES);
  const mistake = r.chance(0.3) ? 'none' : r.pick(mistakeNames);
  const label = MISTAKES[mistake](r, draft);
  const move = r.chance(0.12) ? r.pick(['moved.txt', 'new/dir/moved.txt', draft.path === 'a.txt' ? 'notes.md' : 'a.txt']) : null;
  if (move !== null && r.chance(0.5)) draft.files[move] = 'was here\n';
  const body = [`*** Update File: ${draft.path}`, ...(move === null ? [] : [`*** Move to: ${move}${r.chance(0.3) ? r.pick([' ', '\t', '  ']) : ''}`]), ...renderHunks(draft.hunks)];
  let kind = `update/${label}${move === null ? '' : '+move'}`;
  let patch: string | undefined;
  if (r.chance(0.12)) {
    const name = r.pick(Object.keys(TEXT_MISTAKES));
    patch = TEXT_MISTAKES[name](r, body, draft) ?? undefined;
    kind += `+${name}`;
  }
  return { kind, files: draft.files, folders: [], body, patch };
}

/** Add, delete and move operations on their own, on paths that exist or not. */
function fileOperationCase(r: Prng): Draft {
  const files: Record<string, string | Uint8Array> = {};
  const folders: string[] = [];
  for (const path of PATHS) if (r.chance(0.4)) files[path] = fileText(r, fileLines(r));
  if (r.chance(0.2)) folders.push('folder');
  const existing = Object.keys(files);
  const somePath = () => (existing.length > 0 && r.chance(0.6) ? r.pick(existing) : r.pick([...PATHS, 'folder', 'folder/inside.txt', 'x/y/z.txt']));
  const body: string[] = [];
  const labels: string[] = [];
  for (let n = 1 + r.int(3); n > 0; n--) {
    const op = r.int(4);
    const path = somePath();
    if (op === 0) {
      labels.push(existing.includes(path) ? 'add-existing' : 'add');
      body.push(`*** Add File: ${path}`, ...fileLines(r).map((line) => `+${line}`));
      if (r.chance(0.1)) body.push(r.pick(['no plus', ' space', '']));
    } else if (op === 1) {
      labels.push(existing.includes(path) ? 'delete' : 'delete-missing');
      body.push(`*** Delete File: ${path}`);
    } else if (op === 2 && existing.length > 0) {
      const from = r.pick(existing);
      const lines = linesOf(files[from] as string);
      let to = somePath();
      if (to === from && r.chance(0.7)) to = 'renamed.txt';
      labels.push(to === from ? 'move-onto-itself' : existing.includes(to) ? 'move-onto-existing' : 'move');
      const hunk = lines.length > 0 ? editHunk(r, lines, regions(r, lines.length, 1)[0] ?? { start: 0, deleted: 0 }, 0) : { header: '@@', lines: ['+x'], endOfFile: false };
      body.push(`*** Update File: ${from}`, `*** Move to: ${to}`, ...renderHunks([hunk]));
    } else {
      labels.push(existing.includes(path) ? 'update-pure-addition' : 'update-missing');
      body.push(`*** Update File: ${path}`, '@@', `+${codeLine(r)}`);
    }
  }
  return { kind: `files/${labels.join('+')}`, files, folders, body };
}

/** Paths that leave the root, or spell it absolutely: where toolgate is deliberately stricter. */
function pathCase(r: Prng): Draft {
  const files: Record<string, string | Uint8Array> = { 'a.txt': 'one\ntwo\n', '../outside.txt': 'outside\n' };
  const path = r.pick(['../outside.txt', '../new.txt', '{BASE}/outside.txt', '{ROOT}/a.txt', '{ROOT}/added.txt', 'sub/../a.txt', './a.txt']);
  const op = r.int(4);
  const body =
    op === 0
      ? [`*** Add File: ${path}`, '+hello']
      : op === 1
        ? [`*** Delete File: ${path}`]
        : op === 2
          ? [`*** Update File: ${path}`, '@@', '-one', '+ONE']
          : ['*** Update File: a.txt', `*** Move to: ${path}`, '@@', '-two', '+TWO'];
  return { kind: `paths/${['add', 'delete', 'update', 'move'][op]}`, files, folders: [], body };
}

/** Files that are not plain UTF-8 text, and patches with nothing in them. */
function oddCase(r: Prng): Draft {
  const which = r.int(5);
  if (which === 0) return { kind: 'odd/invalid-utf8', files: { 'a.txt': new Uint8Array([0x61, 0xff, 0x0a]) }, folders: [], body: ['*** Update File: a.txt', '@@', '-a', '+b'] };
  if (which === 1) return { kind: 'odd/empty-patch', files: {}, folders: [], body: [] };
  if (which === 2) return { kind: 'odd/update-folder', files: {}, folders: ['folder'], body: ['*** Update File: folder', '@@', '+x'] };
  if (which === 3) return { kind: 'odd/empty-update', files: { 'a.txt': 'a\n' }, folders: [], body: ['*** Update File: a.txt'] };
  return { kind: 'odd/garbage-operation', files: { 'a.txt': 'a\n' }, folders: [], body: [r.pick(['*** Rename File: a.txt', '*** Update: a.txt', 'Update File: a.txt', '*** Update File:a.txt'])] };
}

/** The case with this id: most are updates, the rest file operations, paths and odd inputs. */
export function generateCase(seed: number, id: number): PatchCase {
  const r = prng((seed * 0x9e3779b1 + id) >>> 0);
  const roll = r.int(100);
  const draft = roll < 70 ? updateCase(r) : roll < 88 ? fileOperationCase(r) : roll < 95 ? pathCase(r) : oddCase(r);
  return { id, kind: draft.kind, files: draft.files, folders: draft.folders, patch: draft.patch ?? wrap(draft.body) };
}

export function generateCases(seed: number, count: number, first = 0): PatchCase[] {
  return Array.from({ length: count }, (_, i) => generateCase(seed, first + i));
}
