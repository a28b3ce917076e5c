import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

const CORPUS = join(REPO_ROOT, '../shared/conformance/apply-patch/scenarios');
const corpusPresent = existsSync(CORPUS);
if (!corpusPresent) console.warn(`skipped: corpus not found at ${CORPUS}`);

/** Every file and folder under `dir`, with file bytes, for whole-tree comparison. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) {
        out[`${relative(dir, path)}/`] = '';
        walk(path);
      } else out[relative(dir, path)] = readFileSync(path).toString('base64');
    }
  };
  walk(dir);
  return out;
}

describe('toolgate call', () => {
  it('prints the output and exits 0, or the error on stderr and exits 1', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-call-'));
    writeFileSync(join(root, 'a.txt'), 'alpha\n');
    const ok = await runNode(['bin/toolgate.js', 'call', 'read_file', '--root', root, '--args', '{"file_path":"a.txt"}']);
    expect(ok).toMatchObject({ code: 0, stdout: '   1 | alpha\n' });
    const missing = await runNode(['bin/toolgate.js', 'call', 'read_file', '--root', root, '--args', '{"file_path":"nope.txt"}']);
    expect(missing).toMatchObject({ code: 1, stderr: 'File not found: nope.txt. Check the path, or find the file with glob.\n' });
    const invalid = await runNode(['bin/toolgate.js', 'call', 'read_file', '--root', root, '--args', '{"path":"a.txt"}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('missing required argument `file_path`');
    const usage = await runNode(['bin/toolgate.js', 'call', 'read_file']);
    expect(usage.code).toBe(2);
    rmSync(root, { recursive: true, force: true });
  });

  describe.skipIf(!corpusPresent)('Codex apply_patch corpus through `toolgate call apply_patch`', () => {
    const scenarios = corpusPresent ? readdirSync(CORPUS).filter((name) => existsSync(join(CORPUS, name, 'patch.txt'))).sort() : [];

    it('has all 25 scenarios', () => {
      expect(scenarios).toHaveLength(25);
    });

    // Each scenario is a CLI process of its own waiting mostly on start-up: run them side by side.
    it.concurrent.for(scenarios)('%s gives the expected tree, byte for byte', async (scenario, { expect }) => {
      const root = mkdtempSync(join(tmpdir(), 'toolgate-corpus-'));
      if (existsSync(join(CORPUS, scenario, 'input'))) cpSync(join(CORPUS, scenario, 'input'), root, { recursive: true });
      const argsFile = join(tmpdir(), `toolgate-corpus-${scenario}.json`);
      writeFileSync(argsFile, JSON.stringify({ patch: readFileSync(join(CORPUS, scenario, 'patch.txt'), 'utf8') }));
      await runNode(['bin/toolgate.js', 'call', 'apply_patch', '--root', root, '--args-file', argsFile]);
      expect(tree(root)).toEqual(tree(join(CORPUS, scenario, 'expected')));
      rmSync(root, { recursive: true, force: true });
      rmSync(argsFile, { force: true });
    });
  });
});
