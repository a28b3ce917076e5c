import type { Command } from 'commander';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_OPERATIONS_AT_ONCE } from '../../lib/exec/server/exec-server.ts';
import { cliProgram } from '../../lib/cli/main.ts';
import { ApiKeyLifecycle } from '../../lib/governance/key-lifecycle.ts';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import { freePort, REPO_ROOT, runNode } from '../helpers/processes.ts';

const toolgate = (args: string[], env: NodeJS.ProcessEnv = {}) => runNode(['bin/toolgate.js', ...args], { env: { TOOLGATE_URL: '', TOOLGATE_KEY: '', ...env } });

/** Every command of the CLI's own table, with the words that name it ([] is `toolgate` itself). */
function commandsOf(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  return [{ path, command }, ...command.commands.flatMap((sub) => commandsOf(sub, [...path, sub.name()]))];
}

describe('every toolgate command explains itself', () => {
  const commands = commandsOf(cliProgram());

  it('walks the whole tree (the table, not a list kept by hand)', () => {
    const names = commands.map(({ path }) => path.join(' '));
    expect(names).toEqual(expect.arrayContaining(['serve', 'manifest validate', 'manifest diff', 'exec-server', 'call', 'audit verify', 'keys create', 'keys rotate', 'version']));
    expect(names.length).toBeGreaterThanOrEqual(20);
  });

  it('each command and subcommand answers --help and -h with exit 0: usage, options, and an example for each leaf', async () => {
    for (const { path, command } of commands) {
      for (const help of ['--help', '-h']) {
        const run = await toolgate([...path, help]);
        expect({ path, help, code: run.code, stderr: run.stderr }).toEqual({ path, help, code: 0, stderr: '' });
        expect(run.stdout).toContain(`Usage: toolgate${path.map((word) => ` ${word}`).join('')}`);
        expect(run.stdout).toContain('Options:');
      }
      const runsSomething = command.commands.length === 0 && path[0] !== 'version';
      if (runsSomething) expect((await toolgate([...path, '--help'])).stdout).toMatch(/\nExamples:\n {2}(npx toolgate|npm start|export )/);
    }
  }, 120_000);

  it('--help wins over what a command would do: validate reads no file, serve starts nothing, call runs nothing', async () => {
    const validate = await toolgate(['manifest', 'validate', '--help']);
    expect(validate.code).toBe(0);
    expect(validate.stdout).not.toContain('cannot read');
    expect((await toolgate(['help', 'keys'])).stdout).toContain('Usage: toolgate keys [options] [command]');
    expect((await toolgate(['keys', 'help', 'rotate'])).stdout).toContain('Usage: toolgate keys rotate');
  });

  it('exec-server --help states the server\'s own defaults', async () => {
    expect((await toolgate(['exec-server', '--help'])).stdout).toContain(`(default ${DEFAULT_FILE_OPERATIONS_AT_ONCE})`);
  });

  it('an unknown option names the closest real one and exits 2; an unknown command likewise', async () => {
    const option = await toolgate(['keys', 'create', '--scope', 'admin', '--principal', 'p', '--tenant', 't']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--scope'");
    expect(option.stderr).toContain('(Did you mean --scopes?)');
    const command = await toolgate(['manifest', 'publsh', 'x.json']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('(Did you mean publish?)');
    expect((await toolgate(['serve', '--prot', '0'])).stderr).toContain('(Did you mean --port?)');
  });

  it('a missing operand or a group without its subcommand is a usage error (exit 2), not a crash', async () => {
    for (const args of [['manifest'], ['keys'], ['audit'], ['manifest', 'validate'], ['manifest', 'diff', '1'], ['keys', 'revoke'], ['call']]) {
      const run = await toolgate(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(/Usage: toolgate|missing required argument/);
    }
  });
});

describe('a gateway that is not there', () => {
  it('"cannot reach" says how to start the local gateway or point at another, for every command that talks to one', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    for (const args of [['manifest', 'list'], ['manifest', 'publish', 'examples/acme/manifest.json'], ['keys', 'list'], ['audit', 'verify', '--thread', 't', '--url', url]]) {
      const run = await toolgate(args, { TOOLGATE_URL: url, TOOLGATE_KEY: 'tg_nothing' });
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(run.stderr).toContain(`cannot reach ${url} (ECONNREFUSED): is the gateway running? Start the local one with \`npm start\``);
      expect(run.stderr).toContain('--url or TOOLGATE_URL');
    }
  }, 60_000);
});

describe('audit verify and keys create say what they did not do', () => {
  let dataDir: string;
  beforeAll(() => { dataDir = mkdtempSync(join(tmpdir(), 'toolgate-explains-')); });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('audit verify of a thread with no envelopes exits 1 saying no such thread, rather than "chain intact"', async () => {
    const run = await toolgate(['audit', 'verify', '--thread', 'typo'], { TOOLGATE_DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('thread "typo": no envelopes in tenant "demo" of the store sqlite');
    expect(run.stderr).toContain('no such thread there');
    const missing = await toolgate(['audit', 'verify'], { TOOLGATE_DATA_DIR: dataDir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--thread ID is required');
  });

  it('keys create without --scopes makes no key and says to name them or say none; --scopes none makes one without', async () => {
    const env = { TOOLGATE_DATA_DIR: dataDir };
    const keys = async () => {
      const store = new SqliteStore(join(dataDir, 'toolgate.db'));
      try {
        return await new ApiKeyLifecycle(store).list('acme', { limit: 50 });
      } finally {
        await store.close();
      }
    };
    const elsewhere = mkdtempSync(join(tmpdir(), 'toolgate-explains-cwd-'));
    const refusedHere = await runNode([join(REPO_ROOT, 'bin/toolgate.js'), 'keys', 'create', '--tenant', 'acme', '--principal', 'bot'], { cwd: elsewhere, env: { TOOLGATE_DATA_DIR: '' } });
    expect(refusedHere.code).toBe(2);
    expect(readdirSync(elsewhere)).toEqual([]); // refused before any store was opened (no .toolgate/ made)
    rmSync(elsewhere, { recursive: true, force: true });
    const without = await toolgate(['keys', 'create', '--tenant', 'acme', '--principal', 'bot'], env);
    expect(without.code).toBe(2);
    expect(without.stdout).toBe('');
    expect(without.stderr).toContain('--scopes is required');
    expect(without.stderr).toContain('--scopes none for a key with none');
    for (const scopes of ['', ' , ', 'none,admin']) expect((await toolgate(['keys', 'create', '--tenant', 'acme', '--principal', 'bot', '--scopes', scopes], env)).code).toBe(2);
    expect((await keys()).keys).toEqual([]);
    const none = await toolgate(['keys', 'create', '--tenant', 'acme', '--principal', 'bot', '--scopes', 'none'], env);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('with scopes []');
    expect((await keys()).keys).toMatchObject([{ principal: 'bot', scopes: [] }]);
  });
});

describe('a reader that stops early', () => {
  it('ends the command quietly (exit 0, no stack trace) when its output pipe closes, as `toolgate --help | head -1` does', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['bin/toolgate.js', 'manifest', 'publish', '--help'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before the first line is written
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
