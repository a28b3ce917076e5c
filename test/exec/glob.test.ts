import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, matchesGlob } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../lib/exec/environment.ts';
import { compileGlob, compileGlobFilter } from '../../lib/exec/local/glob.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { randomGlob, randomPath } from '../helpers/glob-cases.ts';
import { prng } from '../helpers/prng.ts';
import { makeSandbox, type Sandbox } from './helpers.ts';

function refusal(compile: () => unknown): ExecEnvironmentError {
  try {
    compile();
  } catch (error) {
    if (error instanceof ExecEnvironmentError) return error;
    throw error;
  }
  throw new Error('expected the glob to be refused');
}

describe('compileGlob: the glob tool keeps path.matchesGlob’s meaning', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['src/*', 'src/a/b.ts', false],
    ['a?c', 'a/c', false],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/a.ts', true],
    ['src/**', 'src/a/b', true],
    ['src/**', 'src', false],
    ['src/**/b', 'src/b', true],
    ['a**', 'abc', true],
    ['[a-c]x', 'bx', true],
    ['[!a-c]x', 'dx', true],
    ['[^a-c]x', 'ax', false],
    ['[]a]', ']', true],
    ['*.{ts,tsx}', 'a.tsx', true],
    ['{src,lib}/*.ts', 'lib/a.ts', true],
    ['[id].tsx', 'i.tsx', true],
    ['!a', '!a', true],
    ['#a', '#a', true],
    ['*.TS', 'a.ts', false],
    // Dotfiles: a wildcard or ** never takes a name's leading dot; a dot written in the pattern does.
    ['*', '.env', false],
    ['*.ts', '.ts', false],
    ['?env', '.env', false],
    ['[.a]env', '.env', false],
    ['**/*', '.git/config', false],
    ['**/c', 'a/.b/c', false],
    ['.*', '.env', true],
    ['[.]env', '.env', true],
    ['**/.github/*', 'x/.github/ci.yml', true],
    ['{.env,a}', '.env', true],
  ])('%s on %s: %s', (pattern, path, expected) => {
    expect(matchesGlob(path, pattern)).toBe(expected);
    expect(compileGlob(pattern).matches(path)).toBe(expected);
  });

  it('reads \\ as an escape, as ripgrep does (path.matchesGlob reads it as a /, a Windows habit)', () => {
    expect(compileGlob('app/\\[id\\]/*.tsx').matches('app/[id]/page.tsx')).toBe(true);
    expect(compileGlob('app/\\[id\\]/*.tsx').matches('app/i/page.tsx')).toBe(false);
    expect(compileGlob('a\\*').matches('a*')).toBe(true);
    expect(compileGlob('a\\*').matches('ab')).toBe(false);
  });

  it('answers as path.matchesGlob on 800 seeded globs × 20 paths from the shared syntax', () => {
    const rng = prng(20_251_010);
    const letters = ['a', 'b', '.', 'é', '-', '!', '#'];
    const disagreements: string[] = [];
    let compared = 0;
    let matched = 0;
    for (let i = 0; i < 800; i++) {
      const pattern = randomGlob(rng, { letters, escapes: [], prefixes: [''] });
      let glob;
      try {
        glob = compileGlob(pattern);
      } catch {
        continue; // The generator can write {.,a}/b or a program over the size limit: refused, checked elsewhere.
      }
      for (let j = 0; j < 20; j++) {
        const path = randomPath(rng, ['a', 'b', '.', 'é', '-']);
        const expected = matchesGlob(path, pattern);
        compared++;
        if (expected) matched++;
        if (glob.matches(path) !== expected) disagreements.push(`${pattern} on ${path}: matchesGlob says ${expected}`);
      }
    }
    expect(disagreements).toEqual([]);
    // Most globs were compiled, and enough paths matched for the comparison to mean something.
    expect(compared).toBeGreaterThan(700 * 20);
    expect(matched).toBeGreaterThan(1_000);
  });
});

describe('compileGlobFilter: grep’s glob_filter keeps ripgrep’s meaning', () => {
  it.each([
    ['*.ts', 'src/deep/a.ts', true],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'x/src/a.ts', false],
    ['/a.ts', 'a.ts', true],
    ['/a.ts', 'src/a.ts', false],
    ['*', '.env', true],
    ['**/*.ts', '.github/a.ts', true],
    ['!*.md', 'a.md', false],
    ['!*.md', 'a.ts', true],
    ['!build', 'build/out.js', false],
    ['!/build', 'src/build/out.js', true],
    ['#notes', '#notes', true],
    ['?', 'é', false],
    ['??', 'é', true],
    ['x\\ ', 'x ', true],
  ])('%s on %s: %s', (filter, path, expected) => {
    expect(compileGlobFilter(filter).matches(path)).toBe(expected);
  });
});

describe('globs the two engines read apart are refused with what to write instead', () => {
  it.each([
    ['+(a|b)', 'extended glob'],
    ['*(a)', 'extended glob'],
    ['x@(a)', 'extended glob'],
    ['[[:alpha:]]', 'POSIX classes'],
    ['[a\\]]', 'inside a class'],
    ['[a/b]', 'a / inside a class'],
    ['[b-a]', 'runs backwards'],
    ['[', 'without a closing ]'],
    ['{a', 'without a closing }'],
    ['a}', 'a } without a {'],
    ['{a}', 'without a comma'],
    ['a{1..3}', 'ranges such as {1..3} are not supported'],
    ['{a,{b,c}}', 'inside another'],
    ['{a,}', 'empty alternative'],
    ['a\\', 'lone \\'],
    ['a\\/b', 'escaped /'],
    ['/src/*.ts', 'starts with /'],
    ['src/', 'ends with /'],
    ['src//a', 'empty folder name'],
    ['{a/,b}/c', 'empty folder name'],
    ['./src/*.ts', '. or .. folder'],
    ['{.,a}/b', '. or .. folder'],
    ['{a,b}'.repeat(9), 'more than 256 patterns'],
    [`${'{a,b,c,d}'.repeat(3)}/${'x'.repeat(40)}`, 'expand to more than 2000 characters'],
  ])('%s', (pattern, reason) => {
    const error = refusal(() => compileGlob(pattern));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(`glob pattern ${JSON.stringify(pattern)} is not a valid glob: `);
    expect(error.message).toContain(reason);
  });

  it.each([
    ['!', 'empty after the leading !'],
    ['!(*.md)', 'extended glob'],
    ['*.ts ', 'ends with whitespace'],
    ['*.ts\t', 'ends with whitespace'],
    ['[éè]', 'beyond ASCII'],
    ['src/', 'ends with /'],
  ])('glob_filter %s', (filter, reason) => {
    const error = refusal(() => compileGlobFilter(filter));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(`glob_filter ${JSON.stringify(filter)} is not a valid glob: `);
    expect(error.message).toContain(reason);
  });
});

/** Names that hit the corners: dotfiles, non-ASCII (ripgrep's ? is a byte), glob characters, depth. */
const TREE = [
  'a', 'c', 'ab', 'a.ts', 'b.js', '.env', '.a', 'é', 'éa', 'aé', 'a b', '#a', '!a', '[a]', '{a}', 'a-b', 'a]', '*', '?',
  'src/a.ts', 'src/.a', 'src/b/a.ts', 'src/b/.d/e.ts', '.dot/a.ts', '.dot/.a', 'x/y/z/a.ts', 'éb/a.ts', 'ba/b/a', 'bb/a/b',
];
const TOP_LEVEL = TREE.filter((path) => !path.includes('/'));

/** The files ripgrep's own walk lists with the filter as its --glob (a leading # escaped: ripgrep would read a comment). */
function listedByRipgrep(root: string, filter: string): string[] {
  const glob = filter.startsWith('#') ? `\\${filter}` : filter;
  const listed = spawnSync('rg', ['--no-config', '--files', '--hidden', '--no-ignore', `--glob=${glob}`, '--null', '.'], { cwd: root, encoding: 'utf8' });
  // 1: nothing listed.
  if (listed.status !== 0 && listed.status !== 1) throw new Error(`rg --files failed: ${listed.stderr}`);
  return listed.stdout.split('\0').filter(Boolean).map((path) => path.replace(/^\.\//, ''));
}

describe('glob_filter means what ripgrep\'s --glob means, in a folder search and on one file', () => {
  let sandbox: Sandbox;
  let env: LocalExecutionEnvironment;

  beforeAll(async () => {
    sandbox = await makeSandbox();
    for (const path of TREE) {
      await mkdir(dirname(join(sandbox.root, path)), { recursive: true });
      await writeFile(join(sandbox.root, path), 'x\n');
    }
    env = new LocalExecutionEnvironment(sandbox.root);
  });
  afterAll(() => sandbox.cleanup());

  const grepped = async (path: string, filter: string) => (await env.grep('x', path, { glob_filter: filter })).map((match) => match.path);

  it('on 100 seeded filters: the files grep searches are the ones ripgrep lists, and a one-file grep agrees', async () => {
    const rng = prng(7_041_989);
    const options = {
      letters: ['a', 'b', '.', 'é', '-', '!', '#', 's', 'r', 'c'],
      escapes: ['[', ']', '{', '}', '*', '?', '!', '#', ' ', 'a', ','],
      prefixes: ['', '', '!', '/', '!/'],
    };
    const disagreements: string[] = [];
    let filters = 0;
    let searched = 0;
    while (filters < 100) {
      const text = randomGlob(rng, options);
      let filter;
      try {
        filter = compileGlobFilter(text);
      } catch {
        continue;
      }
      filters++;
      const expected = listedByRipgrep(sandbox.root, text).sort();
      const matched = TREE.filter((path) => filter.matches(path)).sort();
      const byGrep = (await grepped('.', text)).sort();
      searched += expected.length;
      if (matched.join('\n') !== expected.join('\n')) disagreements.push(`${text}: compileGlobFilter ${matched.join(' ')} | ripgrep ${expected.join(' ')}`);
      if (byGrep.join('\n') !== expected.join('\n')) disagreements.push(`${text}: grep ${byGrep.join(' ')} | ripgrep ${expected.join(' ')}`);
      for (const name of [rng.pick(TOP_LEVEL), rng.pick(TOP_LEVEL), rng.pick(TOP_LEVEL)]) {
        const oneFile = (await grepped(name, text)).length > 0;
        if (oneFile !== expected.includes(name)) disagreements.push(`${text} on the one file ${name}: ${oneFile}, ripgrep lists it: ${!oneFile}`);
      }
    }
    expect(disagreements).toEqual([]);
    expect(searched).toBeGreaterThan(100 * 3);
  });
});
