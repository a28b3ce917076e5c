import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

// The CLI bundle's staleness check (bin/cli-bundle.js) records its inputs. A source file that is a
// symlink was recorded by the file it led to, so pointing the link at another file left every
// recorded input unchanged: the old bundle ran the old code.
describe('attack: a source symlink pointed elsewhere after the bundle was built', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'toolgate-symlink-'));
    for (const part of ['bin', 'lib', 'schema', 'examples/demo', 'package.json']) cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
    const source = join(root, 'lib/cli/node-crypto.ts');
    const original = readFileSync(source, 'utf8');
    writeFileSync(join(root, 'lib/cli/node-crypto-a.ts'), original);
    writeFileSync(join(root, 'lib/cli/node-crypto-b.ts'), `${original}\nconsole.log('the other target');\n`);
    rmSync(source);
    symlinkSync('node-crypto-a.ts', source);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const version = () => runNode(['bin/toolgate.js', '--version'], { cwd: root, env: { TOOLGATE_CLI_SOURCE: '' } });

  it('runs a bundle rebuilt from the link\'s new target', async () => {
    const first = await version();
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain('the other target');
    const link = join(root, 'lib/cli/node-crypto.ts');
    rmSync(link);
    symlinkSync('node-crypto-b.ts', link);
    expect((await version()).stdout).toContain('the other target');
  });
});
