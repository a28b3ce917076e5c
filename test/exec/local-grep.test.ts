import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_GREP_FILE_BYTES, MAX_GREP_LINE_CHARS } from '../../lib/exec/limits.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { REPO_ROOT } from '../helpers/processes.ts';
import { execError, makeSandbox, utf8, waitUntil, type Sandbox } from './helpers.ts';

let sandbox: Sandbox;
let env: LocalExecutionEnvironment;

beforeEach(async () => {
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root);
});
afterEach(() => sandbox.cleanup());

/** Processes (other than this one) whose command line contains `text`. */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(text)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

describe('attack: a catastrophic pattern', () => {
  it('answers (a+)+$ on an adversarial line correctly instead of backtracking for hours', async () => {
    // JavaScript's RegExp needs about 2^40 steps to fail this line; ripgrep's engine is linear.
    await env.writeFile('redos.txt', utf8(`${'a'.repeat(40)}!\naaaa\n${'a'.repeat(5_000)}!\n`));
    expect(await env.grep('(a+)+$', '.')).toEqual([{ path: 'redos.txt', line: 2, text: 'aaaa' }]);
    expect(await env.grep('^(a|aa)+$', 'redos.txt')).toEqual([{ path: 'redos.txt', line: 2, text: 'aaaa' }]);
  });
});

describe('attack: a search that never ends', () => {
  it('kills ripgrep at the timeout and answers an error that says so', async () => {
    // Nothing in a workspace makes the real rg hang any more (FIFOs and devices are never handed
    // to it), so a stand-in that never ends takes its place; its name carries the probe.
    const probe = `slow-rg-probe-${process.pid}-${Date.now()}`;
    const slowRipgrep = join(sandbox.base, probe);
    writeFileSync(slowRipgrep, '#!/bin/bash\nexec -a "$0" sleep 600\n', { mode: 0o755 });
    await env.writeFile('file.txt', utf8('needle\n'));
    const quick = new LocalExecutionEnvironment(sandbox.root, { grepTimeoutMs: 300, ripgrep: slowRipgrep });
    const error = await execError(quick.grep('needle', '.'));
    expect(error.code).toBe('io_error');
    expect(error.message).toContain('took longer than 300 ms and was stopped');
    expect(await waitUntil(() => processesMentioning(probe).length === 0, 4_000)).toBe(true);
  });

  it('skips a FIFO met while searching a folder', async () => {
    execFileSync('mkfifo', [join(sandbox.root, 'pipe')]);
    await env.writeFile('file.txt', utf8('needle\n'));
    expect(await env.grep('needle', '.')).toEqual([{ path: 'file.txt', line: 1, text: 'needle' }]);
  });
});

describe('grep runs ripgrep with the semantics the tools expect', () => {
  it('searches hidden and git-ignored files, and skips .git and node_modules folders only', async () => {
    for (const [path, text] of Object.entries({
      '.hidden': 'needle',
      '.gitignore': '*.log\n',
      'debug.log': 'needle',
      '.git/config': 'needle',
      'sub/.git/HEAD': 'needle',
      'node_modules/pkg/index.js': 'needle',
      'f.git': 'needle',
    })) {
      await env.writeFile(path, utf8(`${text}\n`));
    }
    expect((await env.grep('needle', '.')).map((match) => match.path)).toEqual(['.hidden', 'debug.log', 'f.git']);
    expect((await env.grep('needle', 'node_modules')).map((match) => match.path)).toEqual(['node_modules/pkg/index.js']);
    expect((await env.grep('needle', '.', { glob_filter: '**' })).map((match) => match.path)).toEqual(['.hidden', 'debug.log', 'f.git']);
  });

  it('takes ripgrep syntax, and refuses what ripgrep refuses with its reason', async () => {
    await env.writeFile('code.ts', utf8('const Needle = 1;\n-flag\n'));
    expect(await env.grep('(?i)needle', '.')).toEqual([{ path: 'code.ts', line: 1, text: 'const Needle = 1;' }]);
    expect(await env.grep('-flag', '.')).toEqual([{ path: 'code.ts', line: 2, text: '-flag' }]);
    const lookbehind = await execError(env.grep('(?<=const )Needle', '.'));
    expect(lookbehind.code).toBe('invalid_request');
    expect(lookbehind.message).toMatch(/not a valid regular expression for ripgrep \(.*look-?around.*\)/i);
    const unclosed = await execError(env.grep('(unclosed', '.'));
    expect(unclosed.message).toContain('unclosed group');
    expect((await execError(env.grep('a\0b', '.'))).code).toBe('invalid_request');
    const glob = await execError(env.grep('x', '.', { glob_filter: '[' }));
    expect(glob.code).toBe('invalid_request');
    expect(glob.message).toContain('glob_filter "[" is not a valid glob');
  });

  it('cuts long lines, skips files over the size limit, and decodes bad UTF-8 without failing', async () => {
    await env.writeFile('long.txt', utf8(`needle${'é'.repeat(20_000)}\n`));
    await env.writeFile('big.txt', new Uint8Array(MAX_GREP_FILE_BYTES + 1).fill(0x0a).fill(0x6e, 0, 1));
    await env.writeFile('latin1.txt', new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xe9, 0x0a]));
    const [latin1, long] = await env.grep('needle|^n$', '.');
    expect(latin1).toEqual({ path: 'latin1.txt', line: 1, text: 'needle \uFFFD' });
    expect(long.path).toBe('long.txt');
    expect(long.text).toBe(`needle${'é'.repeat(MAX_GREP_LINE_CHARS - 6)}…`);
    expect(await env.grep('^n$', 'big.txt')).toEqual([]);
  });

  it('stops at max_results, in path order', async () => {
    await env.writeFile('b.txt', utf8('hit\nhit\n'));
    await env.writeFile('a.txt', utf8('hit\nhit\n'));
    expect(await env.grep('hit', '.', { max_results: 3 })).toEqual([
      { path: 'a.txt', line: 1, text: 'hit' },
      { path: 'a.txt', line: 2, text: 'hit' },
      { path: 'b.txt', line: 1, text: 'hit' },
    ]);
  });

  it('reports a path through a symlinked folder inside the root as it was asked', async () => {
    await env.writeFile('real/file.txt', utf8('needle\n'));
    execFileSync('ln', ['-s', 'real', join(sandbox.root, 'alias')]);
    expect(await env.grep('needle', 'alias')).toEqual([{ path: 'alias/file.txt', line: 1, text: 'needle' }]);
    expect(await env.grep('needle', 'alias/file.txt')).toEqual([{ path: 'alias/file.txt', line: 1, text: 'needle' }]);
  });

  it('says which package to install when ripgrep is missing', async () => {
    await env.writeFile('file.txt', utf8('needle\n'));
    const without = new LocalExecutionEnvironment(sandbox.root, { ripgrep: join(sandbox.base, 'no-such-rg') });
    const error = await execError(without.grep('x', '.'));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('apt-get install ripgrep');
  });
});

describe('a server near its limit of open files', () => {
  it('searches every file, in batches that leave descriptors to spare', async () => {
    for (let i = 0; i < 300; i++) await env.writeFile(`many/f${String(i).padStart(3, '0')}.txt`, utf8('needle\n'));
    // A server allowed 96 descriptors: batches of 256 would run out (EMFILE) and skip files.
    const script = `import { LocalExecutionEnvironment } from './lib/exec/local/local-environment.ts';
      const matches = await new LocalExecutionEnvironment(process.argv[1]).grep('needle', 'many', { max_results: 1000 });
      console.log(matches.length, matches.every((m, i) => m.path === 'many/f' + String(i).padStart(3, '0') + '.txt'));`;
    const output = execFileSync('bash', ['-c', 'ulimit -n 96 && exec "$0" --input-type=module -e "$1" "$2"', process.execPath, script, sandbox.root], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(output.trim()).toBe('300 true');
  });
});
