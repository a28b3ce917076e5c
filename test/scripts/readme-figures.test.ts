import { describe, expect, it } from 'vitest';
import { docFiles, readDoc } from '../../scripts/doc-blocks.ts';
import { runNode } from '../helpers/processes.ts';

// The figures README.md and the guides quote come from real runs (scripts/readme-figures.ts); this
// runs the walkthrough ones (a gateway started as `npm start` does) and compares, and checks that
// every marker is there for the benchmark ones (`npm run readme-figures -- --bench` measures those).
describe('doc figures', () => {
  it('the walkthrough figures in README.md and docs/ are what a run prints', async () => {
    const run = await runNode(['scripts/readme-figures.ts', '--check']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('doc figures match this run (validate-output, unknown-tool, invalid-arguments, coding-audit)');
  }, 60_000);

  it('every benchmark figure has its markers, holding a figure', () => {
    const docs = docFiles().map(readDoc).join('\n');
    const between = (name: string) => new RegExp(`<!-- figure:${name} -->([^<]*)<!-- /figure:${name} -->`).exec(docs)?.[1];
    expect(between('worker-bundle')).toMatch(/^\d+ KiB$/);
    expect(between('console-audit-envelopes')).toMatch(/^\d+-envelope$/);
    expect(between('console-pages')).toMatch(/^sign-in [\d.]+ KB \([\d.]+ KB gzipped\), [\d.]+ ms; approvals .*; keys [\d.]+ KB \([\d.]+ KB\), [\d.]+ ms$/);
  });
});
