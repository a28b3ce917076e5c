/**
 * The documentation's files (README.md and docs/*.md) and their command blocks, as the tests that
 * run them read them. A command block (```bash, ```sh, ```shell) says what becomes of it in the
 * HTML comments on the lines right above its fence:
 * - `<!-- walkthrough:NAME -->`: run as written by test/scripts/readme-walkthroughs.test.ts;
 * - `<!-- run:SESSION -->`: run as written by test/scripts/doc-commands.test.ts, in document order
 *   with the file's other blocks of that session (`<!-- run:SESSION:gateway -->` is the session's
 *   gateway, started first and left running; `<!-- run:SESSION:step NAME -->` on a line of its own
 *   is a step the test takes as a person would, such as pressing Approve in the console);
 * - `<!-- not-run: REASON -->`: not runnable here, and why (a cloud account, a system install).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

/** README.md first, then the guides in name order: paths relative to the project. */
export function docFiles(): string[] {
  const guides = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...guides.map((name) => `docs/${name}`)];
}

export const readDoc = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

export interface CommandBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The contents of the `<!-- ... -->` comments right above the fence, nearest last. */
  markers: string[];
}

const COMMAND_LANGUAGES = new Set(['bash', 'sh', 'shell']);
const COMMENT = /^<!--\s*(.*?)\s*-->$/;

/** Every fenced block whose language is a shell's, with the markers above it. */
export function commandBlocks(file: string, text = readDoc(file)): CommandBlock[] {
  const lines = text.split('\n');
  const blocks: CommandBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)/.exec(lines[i]);
    if (!fence) continue;
    const close = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (close < 0) throw new Error(`${file}:${i + 1}: a code block that never closes`);
    if (COMMAND_LANGUAGES.has(fence[1])) {
      const markers: string[] = [];
      for (let j = i - 1; j >= 0 && COMMENT.test(lines[j]); j--) markers.unshift(COMMENT.exec(lines[j])![1]);
      blocks.push({ file, line: i + 1, code: `${lines.slice(i + 1, close).join('\n')}\n`, markers });
    }
    i = close;
  }
  return blocks;
}

export type SessionStep = { kind: 'gateway' | 'block'; code: string; line: number } | { kind: 'step'; name: string; line: number };

/** The steps of one `run:SESSION` in a file, in document order. */
export function sessionSteps(file: string, session: string, text = readDoc(file)): SessionStep[] {
  const blocks = new Map(commandBlocks(file, text).map((block) => [block.line, block]));
  const steps: SessionStep[] = [];
  text.split('\n').forEach((line, index) => {
    const step = new RegExp(`^<!-- run:${session}:step (\\S+) -->$`).exec(line);
    if (step) steps.push({ kind: 'step', name: step[1], line: index + 1 });
    const block = blocks.get(index + 1);
    if (block?.markers.includes(`run:${session}`)) steps.push({ kind: 'block', code: block.code, line: block.line });
    if (block?.markers.includes(`run:${session}:gateway`)) steps.push({ kind: 'gateway', code: block.code, line: block.line });
  });
  return steps;
}

/** The sessions a file's blocks name. */
export function sessionsOf(file: string, text = readDoc(file)): string[] {
  const names = commandBlocks(file, text).flatMap((block) => block.markers.flatMap((marker) => /^run:([\w-]+)/.exec(marker)?.[1] ?? []));
  return [...new Set(names)];
}

/** The code of the block announced by `<!-- walkthrough:NAME -->`, in whichever doc file holds it. */
export function walkthroughBlock(name: string): string {
  const found = docFiles().flatMap((file) => commandBlocks(file)).filter((block) => block.markers.includes(`walkthrough:${name}`));
  if (found.length !== 1) throw new Error(`${found.length} code blocks are announced by <!-- walkthrough:${name} --> in README.md and docs/ (one expected)`);
  return found[0].code;
}
