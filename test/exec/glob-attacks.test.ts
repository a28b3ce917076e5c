import { cpSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GLOB_LENGTH } from '../../lib/exec/local/glob-syntax.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { HEALTH_PATH, startExecServer, type ExecServer } from '../../lib/exec/server/exec-server.ts';
import { globTool } from '../../lib/tools/coding/glob.ts';
import { grepTool } from '../../lib/tools/coding/grep.ts';
import { REPO_ROOT } from '../helpers/processes.ts';
import { run, runError } from '../tools/coding/run-tool.ts';
import { execError, makeSandbox, type Sandbox } from './helpers.ts';

/**
 * The review's finding: `glob` (a read tool, granted without approval) with these patterns
 * blocked the exec-server's event loop for minutes under path.matchesGlob (a backtracking
 * RegExp); the same through grep's glob_filter on one file. Each attack here must answer, with
 * the right answer, and leave the exec-server serving others.
 */
const EXTGLOB_ATTACK = '+(?|?|?|?|?|?|?|?|?|?|?|?|?|?|?|?)!';
/** 32 characters: 20.5 s on a 47-character path before. */
const STAR_CHAIN_ATTACK = `**/${'*?'.repeat(14)}!`;
/** 47 characters, no `!`: the failing match a backtracking engine retries the longest. */
const LONG_PATH = 'src/components/dashboard/widgets/chart-legend.ts';
/** Its last name has 14 characters or more and ends with `!`: the one file the chain matches. */
const BANG_PATH = 'src/components/dashboard/widgets/legend-notes-draft!';

const SECRET = 'test-secret-0123456789abcdef0123456789abcdef';
const TENANT = 'acme';

let sandbox: Sandbox;
let env: LocalExecutionEnvironment;
let server: ExecServer;
let remote: RemoteExecutionEnvironment;

beforeAll(async () => {
  sandbox = await makeSandbox();
  // The demo workspace the review attacked, plus the paths the long-path attack needs.
  cpSync(join(REPO_ROOT, 'examples/demo/workspace'), sandbox.root, { recursive: true });
  for (const path of [LONG_PATH, BANG_PATH, 'short!']) {
    await mkdir(dirname(join(sandbox.root, path)), { recursive: true });
    await writeFile(join(sandbox.root, path), 'needle\n');
  }
  env = new LocalExecutionEnvironment(sandbox.root);
  server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, log: () => {} });
  remote = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT });
});
afterAll(async () => {
  await server.close();
  await sandbox.cleanup();
});

describe('attack: an extended glob that backtracks for minutes', () => {
  it('is refused by glob with invalid_request saying what to write instead', async () => {
    const error = await execError(env.glob(EXTGLOB_ATTACK, '.'));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('extended glob');
    expect(error.message).toContain('{a,b}');
  });

  it('reaches the model as a tool error through a real exec-server, which keeps answering', async () => {
    const [refused, health, stat] = await Promise.all([
      runError(globTool(remote), { pattern: EXTGLOB_ATTACK }),
      fetch(`${server.url}${HEALTH_PATH}`),
      remote.stat('greet.sh'),
    ]);
    expect(refused.code).toBe('error');
    expect(refused.message).toContain('is not a valid glob: it has an extended glob (+(…))');
    expect(health.status).toBe(200);
    expect(stat?.type).toBe('file');
  });

  it('is refused the same as grep glob_filter, on one file and on a folder', async () => {
    for (const path of ['greet.sh', '.']) {
      const error = await execError(env.grep('echo', path, { glob_filter: EXTGLOB_ATTACK }));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain('glob_filter "+(?|?|?|?|?|?|?|?|?|?|?|?|?|?|?|?)!" is not a valid glob: it has an extended glob');
    }
  });
});

describe('attack: a chain of * and ? on a long path', () => {
  it('answers glob with the one matching file', async () => {
    expect((await env.glob(STAR_CHAIN_ATTACK, '.')).map((match) => match.path)).toEqual([BANG_PATH]);
    expect(await env.glob(`**/${'*?'.repeat(30)}!`, '.')).toEqual([]);
  });

  it('answers through a real exec-server while other calls and /healthz are answered', async () => {
    const calls = Array.from({ length: 4 }, () => run(globTool(remote), { pattern: STAR_CHAIN_ATTACK }));
    const [health, listed, ...globbed] = await Promise.all([fetch(`${server.url}${HEALTH_PATH}`), remote.listDirectory('.', 1), ...calls]);
    expect(health.status).toBe(200);
    expect(listed.map((entry) => entry.path)).toContain('greet.sh');
    expect(globbed).toEqual(Array(4).fill(BANG_PATH));
  });

  it('answers grep glob_filter on the one file it names, matching or not', async () => {
    // One file: the filter is matched against its name (a folder search hands it to ripgrep).
    const filter = `${'*?'.repeat(6)}!`;
    expect(await env.grep('needle', BANG_PATH, { glob_filter: filter })).toEqual([{ path: BANG_PATH, line: 1, text: 'needle' }]);
    expect(await env.grep('needle', LONG_PATH, { glob_filter: filter })).toEqual([]);
    expect(await env.grep('needle', 'short!', { glob_filter: filter })).toEqual([]);
    expect((await env.grep('needle', '.', { glob_filter: filter })).map((match) => match.path)).toEqual([BANG_PATH]);
  });
});

describe('attack: a pattern too long or too large', () => {
  it(`refuses a glob over ${MAX_GLOB_LENGTH} characters, and answers one at the limit`, async () => {
    expect(await env.glob('x'.repeat(MAX_GLOB_LENGTH), '.')).toEqual([]);
    const error = await execError(env.glob('x'.repeat(MAX_GLOB_LENGTH + 1), '.'));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(`longer than ${MAX_GLOB_LENGTH} characters`);
  });

  it('answers a chain of 300 wildcard pairs', async () => {
    expect(await env.glob(`**/${'*?'.repeat(300)}!`, '.')).toEqual([]);
    expect((await env.glob(`**/${'*?'.repeat(18)}!`, '.')).map((match) => match.path)).toEqual([BANG_PATH]);
  });

  it('refuses {…} groups that multiply past the limits, or a program too large to run in bounded time', async () => {
    const groups = await execError(env.glob('{a,b}'.repeat(9), '.'));
    expect(groups.message).toContain('stand for more than 256 patterns');
    const long = await execError(env.glob(`${'{a,b,c,d}'.repeat(3)}/${'[a-z]?'.repeat(40)}`, '.'));
    expect(long.message).toContain('expand to more than 2000 characters in all');
    const large = await execError(env.glob(`**/${'*?'.repeat(400)}!`, '.'));
    expect(large.code).toBe('invalid_request');
    expect(large.message).toContain('too complex to match in bounded time');
  });

  it('refuses a glob whose check of one long path would cost more than the matching budget', async () => {
    const deep = await makeSandbox();
    try {
      // About 3,250 characters of folders whose `e`s never line up the same way twice.
      const path = Array.from({ length: 15 }, (_, i) => `${'ae'.repeat(100 + i)}x`).join('/');
      await mkdir(join(deep.root, path), { recursive: true });
      await writeFile(join(deep.root, path, 'file.txt'), '');
      const error = await execError(new LocalExecutionEnvironment(deep.root).glob(`**/*e${'?'.repeat(900)}`, '.'));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(/too complex to check against a path of \d+ characters in bounded time/);
    } finally {
      await deep.cleanup();
    }
  });

  it('refuses the same through the grep tool, which never starts ripgrep for it', async () => {
    const error = await runError(grepTool(env), { pattern: 'needle', glob_filter: '@(a|b)' });
    expect(error.message).toContain('glob_filter "@(a|b)" is not a valid glob: it has an extended glob');
  });
});
