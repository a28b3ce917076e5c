import { mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { bubblewrapSandbox, bytes, execError, makeSandbox, utf8, type Sandbox } from './helpers.ts';

let commands: CommandSandbox;
let sandbox: Sandbox;
let env: LocalExecutionEnvironment;

beforeAll(async () => {
  commands = await bubblewrapSandbox();
});
afterAll(() => commands.close());
beforeEach(async () => {
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root, { sandbox: commands });
});
afterEach(() => sandbox.cleanup());

async function files(entries: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(entries)) await env.writeFile(path, utf8(text));
}

describe('LocalExecutionEnvironment: files', () => {
  it.each([
    ['CRLF line endings', utf8('one\r\ntwo\r\n')],
    ['lone CR', utf8('one\rtwo\r')],
    ['invalid UTF-8 and NUL bytes', bytes(0xff, 0xfe, 0x80, 0x00, 0xc3, 0x28, 0x0a)],
    ['an empty file', bytes()],
  ])('round-trips %s byte for byte', async (_, content) => {
    await env.writeFile('data.bin', content);
    expect(await env.readFile('data.bin')).toEqual(content);
    expect(new Uint8Array(await readFile(join(sandbox.root, 'data.bin')))).toEqual(content);
  });

  it('creates missing parent folders on write and on move', async () => {
    await env.writeFile('a/b/c/file.txt', utf8('x'));
    await env.moveFile('a/b/c/file.txt', 'd/e/moved.txt');
    expect(await env.fileExists('a/b/c/file.txt')).toBe(false);
    expect(await readFile(join(sandbox.root, 'd/e/moved.txt'), 'utf8')).toBe('x');
  });

  it('overwrites an existing file when moving onto it', async () => {
    await files({ 'from.txt': 'new', 'to.txt': 'old' });
    await env.moveFile('from.txt', 'to.txt');
    expect(new TextDecoder().decode(await env.readFile('to.txt'))).toBe('new');
  });

  it('accepts an absolute path inside the root', async () => {
    await env.writeFile(join(sandbox.root, 'abs.txt'), utf8('abs'));
    expect(new TextDecoder().decode(await env.readFile('abs.txt'))).toBe('abs');
  });

  it('reports stat and existence, null for nothing', async () => {
    await files({ 'dir/file.txt': 'hello' });
    expect(await env.stat('dir/file.txt')).toMatchObject({ type: 'file', size: 5 });
    expect(await env.stat('dir')).toMatchObject({ type: 'directory' });
    expect(await env.stat('missing.txt')).toBeNull();
    expect(await env.stat('dir/file.txt/below')).toBeNull();
    expect(await env.fileExists('dir/file.txt')).toBe(true);
    expect(await env.fileExists('missing.txt')).toBe(false);
  });

  it('deletes files but refuses folders and missing files', async () => {
    await files({ 'dir/file.txt': 'x' });
    expect((await execError(env.deleteFile('dir'))).code).toBe('is_directory');
    expect((await execError(env.deleteFile('nope.txt'))).code).toBe('not_found');
    expect((await execError(env.deleteFile('.'))).code).toBe('invalid_path');
    await env.deleteFile('dir/file.txt');
    expect(await env.fileExists('dir/file.txt')).toBe(false);
  });

  it('answers not_found and is_directory with messages that name the path', async () => {
    await mkdir(join(sandbox.root, 'folder'));
    const missing = await execError(env.readFile('nope.txt'));
    expect(missing.code).toBe('not_found');
    expect(missing.message).toContain('"nope.txt"');
    expect((await execError(env.readFile('folder'))).code).toBe('is_directory');
    expect((await execError(env.writeFile('folder', utf8('x')))).code).toBe('is_directory');
  });
});

describe('LocalExecutionEnvironment: listDirectory', () => {
  beforeEach(() => files({ 'b.txt': 'bb', 'a/x.txt': 'x', 'a/deep/y.txt': 'y', 'a-b.txt': '' }));

  it('lists one level at depth 1, with relative slash paths', async () => {
    expect(await env.listDirectory('.', 1)).toEqual([
      { path: 'a', type: 'directory', size: expect.any(Number) },
      { path: 'a-b.txt', type: 'file', size: 0 },
      { path: 'b.txt', type: 'file', size: 2 },
    ]);
  });

  it('goes deeper as a tree (each folder followed by its entries)', async () => {
    expect((await env.listDirectory('', 3)).map((e) => e.path)).toEqual(['a', 'a/deep', 'a/deep/y.txt', 'a/x.txt', 'a-b.txt', 'b.txt']);
    expect((await env.listDirectory('a', 1)).map((e) => e.path)).toEqual(['a/deep', 'a/x.txt']);
  });

  it('lists symlinks as symlinks without following them', async () => {
    await symlink(sandbox.outside, join(sandbox.root, 'link'));
    const entries = await env.listDirectory('.', 5);
    expect(entries.find((e) => e.path === 'link')?.type).toBe('symlink');
    expect(entries.some((e) => e.path.startsWith('link/'))).toBe(false);
  });

  it('refuses a file, a missing folder and a depth below 1', async () => {
    expect((await execError(env.listDirectory('b.txt', 1))).code).toBe('not_directory');
    expect((await execError(env.listDirectory('missing', 1))).code).toBe('not_found');
    expect((await execError(env.listDirectory('.', 0))).code).toBe('invalid_request');
  });
});

describe('LocalExecutionEnvironment: grep', () => {
  beforeEach(() =>
    files({
      'src/b.ts': 'const Needle = 1;\nnothing\nneedle again\n',
      'src/a.ts': 'no\r\nneedle in CRLF\r\n',
      'docs/notes.md': 'a needle in docs',
      'node_modules/pkg/index.ts': 'needle',
      '.git/config': 'needle',
    }),
  );

  it('returns matches sorted by path then line, skipping .git and node_modules', async () => {
    expect(await env.grep('needle', '.')).toEqual([
      { path: 'docs/notes.md', line: 1, text: 'a needle in docs' },
      { path: 'src/a.ts', line: 2, text: 'needle in CRLF' },
      { path: 'src/b.ts', line: 3, text: 'needle again' },
    ]);
  });

  it('honours case_insensitive, glob_filter and max_results', async () => {
    expect((await env.grep('needle', 'src', { case_insensitive: true })).map((m) => `${m.path}:${m.line}`)).toEqual(['src/a.ts:2', 'src/b.ts:1', 'src/b.ts:3']);
    expect((await env.grep('needle', '.', { glob_filter: '*.md' })).map((m) => m.path)).toEqual(['docs/notes.md']);
    expect((await env.grep('needle', '.', { glob_filter: 'src/**/*.ts' })).map((m) => m.path)).toEqual(['src/a.ts', 'src/b.ts']);
    expect(await env.grep('needle', '.', { glob_filter: 'docs/*.ts' })).toEqual([]);
    expect((await env.grep('needle', 'src', { glob_filter: '**/*.ts' })).map((m) => m.path)).toEqual(['src/a.ts', 'src/b.ts']);
    expect(await env.grep('needle', '.', { max_results: 2 })).toHaveLength(2);
  });

  it('greps a single file and skips binary files', async () => {
    await env.writeFile('bin.dat', new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x01]));
    expect((await env.grep('needle', '.')).some((m) => m.path === 'bin.dat')).toBe(false);
    expect(await env.grep('^needle', 'src/b.ts')).toEqual([{ path: 'src/b.ts', line: 3, text: 'needle again' }]);
  });

  it('refuses an invalid regular expression with invalid_request', async () => {
    const error = await execError(env.grep('(unclosed', '.'));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('regular expression');
  });
});

describe('LocalExecutionEnvironment: glob', () => {
  it('returns matching files newest first', async () => {
    await files({ 'old.ts': '', 'src/new.ts': '', 'src/mid.ts': '', 'readme.md': '', 'node_modules/x/skip.ts': '' });
    const stamp = (path: string, seconds: number) => utimes(join(sandbox.root, path), seconds, seconds);
    await stamp('old.ts', 1_000_000);
    await stamp('src/mid.ts', 2_000_000);
    await stamp('src/new.ts', 3_000_000);
    expect(await env.glob('**/*.ts', '.')).toEqual([
      { path: 'src/new.ts', mtime_ms: 3_000_000_000 },
      { path: 'src/mid.ts', mtime_ms: 2_000_000_000 },
      { path: 'old.ts', mtime_ms: 1_000_000_000 },
    ]);
    expect((await env.glob('*.ts', '.')).map((m) => m.path)).toEqual(['old.ts']);
    expect((await env.glob('*.ts', 'src')).map((m) => m.path)).toEqual(['src/new.ts', 'src/mid.ts']);
    expect((await env.glob('node_modules/**/*.ts', '.')).map((m) => m.path)).toEqual(['node_modules/x/skip.ts']);
  });

  it('refuses an empty pattern and a path that is a file', async () => {
    await files({ 'f.txt': '' });
    expect((await execError(env.glob('', '.'))).code).toBe('invalid_request');
    expect((await execError(env.glob('*', 'f.txt'))).code).toBe('not_directory');
  });

  it('stops, walking nothing more, once nobody waits for its answer (its signal aborted)', async () => {
    await files({ 'a/b/c.ts': '' });
    const error = await execError(env.glob('**/*.ts', '.', { signal: AbortSignal.abort() }));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('nobody waits for its answer');
  });
});

describe('LocalExecutionEnvironment: commands and facts', () => {
  it('runs a command in the root (or a cwd inside it) and reports exit code and output', async () => {
    await mkdir(join(sandbox.root, 'sub'));
    const result = await env.execCommand('pwd; echo oops >&2; exit 3');
    expect(result).toMatchObject({ exit_code: 3, signal: null, stderr: 'oops\n', timed_out: false, output_capped: false });
    expect(result.stdout.trim()).toBe(await env.workingDirectory());
    expect((await env.execCommand('pwd', { cwd: 'sub' })).stdout.trim()).toBe(join(await env.workingDirectory(), 'sub'));
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('passes explicit env and decodes output as UTF-8', async () => {
    const result = await env.execCommand('printf "%s" "$GREETING"', { env: { GREETING: 'grüß dich' } });
    expect(result.stdout).toBe('grüß dich');
  });

  it('refuses bad timeouts, an empty command and a cwd that is a file', async () => {
    await files({ 'f.txt': '' });
    expect((await execError(env.execCommand('true', { timeout_ms: 0 }))).code).toBe('invalid_request');
    expect((await execError(env.execCommand('true', { timeout_ms: 10_000_000 }))).code).toBe('invalid_request');
    expect((await execError(env.execCommand('  '))).code).toBe('invalid_request');
    expect((await execError(env.execCommand('echo a\0b'))).code).toBe('invalid_request');
    expect((await execError(env.execCommand('true', { env: { 'A=B': 'x' } }))).code).toBe('invalid_request');
    expect((await execError(env.execCommand('true', { cwd: 'f.txt' }))).code).toBe('not_directory');
  });

  it('knows its working directory and platform', async () => {
    expect(await env.workingDirectory()).toMatch(/root$/);
    expect(await env.platform()).toBe(process.platform);
  });

  it('refuses a root that does not exist', () => {
    expect(() => new LocalExecutionEnvironment(join(sandbox.base, 'missing'))).toThrow(/does not exist/);
  });
});

describe('LocalExecutionEnvironment: writes land where they should', () => {
  it('writes through a symlinked folder that stays inside the root', async () => {
    await mkdir(join(sandbox.root, 'real'));
    await symlink(join(sandbox.root, 'real'), join(sandbox.root, 'alias'));
    await env.writeFile('alias/file.txt', utf8('via alias'));
    expect(await readFile(join(sandbox.root, 'real/file.txt'), 'utf8')).toBe('via alias');
    await writeFile(join(sandbox.root, 'real/other.txt'), 'direct');
    expect(new TextDecoder().decode(await env.readFile('alias/other.txt'))).toBe('direct');
  });
});

describe('LocalExecutionEnvironment: deep paths', () => {
  it('creates more nested folders than the symlink hop limit in one write', async () => {
    const deep = `${Array.from({ length: 60 }, (_, i) => `d${i}`).join('/')}/file.txt`;
    await env.writeFile(deep, utf8('deep'));
    expect(new TextDecoder().decode(await env.readFile(deep))).toBe('deep');
  });
});
