/**
 * OpenAI Codex's apply_patch scenarios (../shared/conformance/apply-patch/scenarios): copy
 * input/ into a temp folder, apply patch.txt (success or failure), and compare the whole tree
 * (folders, names, bytes) with expected/.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApplyPatchError, applyPatch } from '../../../lib/tools/apply-patch/index.ts';
import { TempDirFileSystem, copyTree, snapshotTree } from './temp-dir-fs.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const corpus = join(repoRoot, '../shared/conformance/apply-patch/scenarios');
const corpusExists = existsSync(corpus);
const scenarios = corpusExists
  ? readdirSync(corpus)
      .filter((name) => statSync(join(corpus, name)).isDirectory())
      .sort()
  : [];

if (!corpusExists) console.warn(`skipped: corpus not found at ${corpus}`);

async function runScenario(name: string): Promise<void> {
  const dir = join(corpus, name);
  const work = await mkdtemp(join(tmpdir(), 'toolgate-apply-patch-'));
  try {
    if (existsSync(join(dir, 'input'))) await copyTree(join(dir, 'input'), work);
    const patch = await readFile(join(dir, 'patch.txt'), 'utf8');
    try {
      await applyPatch(patch, new TempDirFileSystem(work));
    } catch (error) {
      // Failing scenarios are specified by their final tree only.
      if (!(error instanceof ApplyPatchError)) throw error;
    }
    expect(await snapshotTree(work)).toEqual(await snapshotTree(join(dir, 'expected')));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

describe.skipIf(!corpusExists)('apply_patch conformance (Codex scenarios)', () => {
  it('finds the scenarios', () => {
    expect(scenarios.length).toBeGreaterThan(0);
  });

  for (const name of scenarios) {
    it(name, () => runScenario(name));
  }
});
