import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

// The CLI runs from a bundle (bin/cli-bundle.js); TOOLGATE_CLI_SOURCE=1 runs the TypeScript sources.
const fromSource = { TOOLGATE_CLI_SOURCE: '1' };
const fromBundle = { TOOLGATE_CLI_SOURCE: '' };

describe('the bundled CLI behaves as the source CLI', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-bundle-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ format: 'toolgate.manifest/v1', tenant: 'acme', version: '1', profile: 'openai', tools: [{ name: 'a', executor: { kind: 'grpc' } }] }));
    writeFileSync(join(dir, 'not-json.json'), '{ "tools": [');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cases = () => [
    [], ['--help'], ['-h'], ['help'], ['--version'], ['-v'], ['no-such-command'], ['manifest'], ['manifest', 'validate'],
    ['manifest', 'validate', 'examples/demo/manifest.json'], ['manifest', 'validate', 'examples/acme/manifest.json'],
    ['manifest', 'validate', join(dir, 'bad.json')], ['manifest', 'validate', join(dir, 'not-json.json')], ['manifest', 'validate', '/nonexistent/m.json'],
    ['keys'], ['audit'], ['call'],
  ];

  it('same output and exit code for help, version, usage errors and manifest validate', async () => {
    for (const args of cases()) {
      const source = await runNode(['bin/toolgate.js', ...args], { env: fromSource });
      const bundled = await runNode(['bin/toolgate.js', ...args], { env: fromBundle });
      expect({ args, ...bundled }).toEqual({ args, ...source });
    }
    expect(JSON.parse(readFileSync(join(REPO_ROOT, 'dist/cli.json'), 'utf8')).dir).toMatch(/^cli-[0-9a-f]{16}$/);
  });

  const node20 = olderNode();
  it.skipIf(!node20)(`the quick commands run on the system's older Node (${node20 ?? 'none here'}) as on Node 22`, async () => {
    for (const args of cases().filter((a) => a.length === 0 || a[0] !== 'keys' && a[0] !== 'audit' && a[0] !== 'call')) {
      const source = await runNode(['bin/toolgate.js', ...args], { env: fromSource });
      const older = spawnSync(node20!, ['bin/toolgate.js', ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, ...fromBundle } });
      expect({ args, code: older.status, stdout: older.stdout, stderr: older.stderr }).toEqual({ args, ...source });
    }
  }, 120_000); // two processes per case, each well under a second idle; a loaded machine needs the room
});

/** A copy of the project (sources, bin, schema, examples; node_modules linked) whose sources a test may change. */
function scratchProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-scratch-'));
  for (const part of ['bin', 'lib', 'schema', 'examples/demo', 'package.json']) cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

describe('a changed source is picked up', () => {
  let root: string;
  beforeAll(() => { root = scratchProject(); });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const help = (env = fromBundle) => runNode(['bin/toolgate.js', '--help'], { cwd: root, env });
  const stampDir = () => (JSON.parse(readFileSync(join(root, 'dist/cli.json'), 'utf8')) as { dir: string }).dir;
  const main = () => join(root, 'lib/cli/main.ts');

  function sameSizeEditKeepingTimes(from: string, to: string): void {
    const before = statSync(main(), { bigint: true });
    const edited = join(root, 'edited.ts');
    writeFileSync(edited, readFileSync(main(), 'utf8').replace(from, to));
    execFileSync('touch', ['-r', main(), edited]);
    execFileSync('cp', ['-p', edited, main()]);
    const after = statSync(main(), { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
  }

  it('runs the bundle when it is fresh, and a rebuilt one after every kind of edit', async () => {
    const first = await help();
    expect(first.code).toBe(0);
    const built = stampDir();

    // The bundle is what runs: an edit to it (not to the sources) shows.
    const bundleMain = join(root, 'dist', built, 'main.js');
    writeFileSync(bundleMain, readFileSync(bundleMain, 'utf8').replace('this text', 'this text [bundle]'));
    expect((await help()).stdout).toContain('this text [bundle]');

    // A plain edit: rebuilt.
    writeFileSync(main(), readFileSync(main(), 'utf8').replace('this text', 'this page'));
    const edited = await help();
    expect(edited.stdout).toContain('this page');
    expect(stampDir()).not.toBe(built);

    // Same size, timestamps put back to the nanosecond (as `cp -p`, `touch -r` or an rsync would),
    // right after a build (the "racy" window) and again long after one: still rebuilt.
    sameSizeEditKeepingTimes('this page', 'that page');
    expect((await help()).stdout).toContain('that page');
    await new Promise((done) => setTimeout(done, 2200));
    expect((await help()).stdout).toContain('that page'); // restamped: the files are no longer racy
    sameSizeEditKeepingTimes('that page', 'what page');
    expect((await help()).stdout).toContain('what page');

    // A file the entry imports (not the entry itself).
    const crypto = join(root, 'lib/cli/node-crypto.ts');
    writeFileSync(crypto, `${readFileSync(crypto, 'utf8')}\nconsole.log('node-crypto changed');\n`);
    expect((await help()).stdout).toContain('node-crypto changed');
  });

  it('an edit that does not build never runs the old bundle: the sources run and fail', async () => {
    expect((await help()).code).toBe(0);
    writeFileSync(main(), `${readFileSync(main(), 'utf8')}\nexport const broken = ;\n`);
    const run = await help();
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('Usage:');
  });

  it('an unchanged tree is not rebuilt; a missing bundle is', async () => {
    const other = scratchProject();
    try {
      const again = () => runNode(['bin/toolgate.js', '--version'], { cwd: other, env: fromBundle });
      expect((await again()).code).toBe(0);
      const dir = (JSON.parse(readFileSync(join(other, 'dist/cli.json'), 'utf8')) as { dir: string }).dir;
      const mtime = statSync(join(other, 'dist', dir, 'main.js')).mtimeMs;
      expect((await again()).code).toBe(0);
      expect(statSync(join(other, 'dist', dir, 'main.js')).mtimeMs).toBe(mtime);

      // The stamp naming a bundle that is gone: built again, not a crash.
      rmSync(join(other, 'dist', dir), { recursive: true });
      const rebuilt = await again();
      expect(rebuilt.code).toBe(0);
      expect(statSync(join(other, 'dist', dir, 'main.js')).isFile()).toBe(true);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

/** A `node` older than 22.18 on PATH outside node_modules (this machine's system Node 20), if any. */
function olderNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const found = spawnSync(join(dir, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (found.status !== 0) continue;
    const [major, minor] = found.stdout.trim().split('.').map(Number);
    return major < 22 || (major === 22 && minor < 18) ? join(dir, 'node') : undefined;
  }
  return undefined;
}

describe('the package', () => {
  it('ships the CLI bundle (built by prepack) and leaves out what .gitignore leaves out', () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts=false'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(pack.status).toBe(0);
    const files = (JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
    const stamp = JSON.parse(readFileSync(join(REPO_ROOT, 'dist/cli.json'), 'utf8')) as { dir: string };
    expect(files).toContain('dist/cli.json');
    expect(files).toContain(`dist/${stamp.dir}/main.js`);
    expect(files).toContain('bin/toolgate.js');
    expect(files).toContain('lib/cli/main.ts');
    expect(files.filter((f) => /^(node_modules|\.toolgate|\.wrangler|coverage)\/|^dist\/(?!cli)/.test(f))).toEqual([]);
  });
});
