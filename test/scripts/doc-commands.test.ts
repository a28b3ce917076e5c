import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandBlocks, docFiles, sessionsOf, sessionSteps } from '../../scripts/doc-blocks.ts';
import { launchChromium, signIn, submit, text } from '../console/harness.ts';
import { freePort } from '../helpers/processes.ts';
import { printed, promisedOutput, runBlock, scratchEnv, startGateway, WALKTHROUGHS } from './doc-shell.ts';

// Every command block of README.md and docs/*.md runs as written in a test, or says why it cannot
// run here (scripts/doc-blocks.ts: the markers). The `run:SESSION` blocks of a file run here, in
// document order, each in its own bounded bash that starts with the variables the blocks before it
// exported, on a scratch data folder (the docs' `.toolgate/`) and a free port (their
// 127.0.0.1:8787); `curl` fails on an HTTP error status, so a refused request cannot pass for a
// printed answer. Each `# ` line right under a command is output the doc promises.

const DISPOSITION = /^(walkthrough:[\w-]+|run:[\w-]+(:gateway)?|not-run: .{20,})$/;

describe('every command block in README.md and docs/ runs in a test, or says why it cannot', () => {
  const blocks = docFiles().flatMap((file) => commandBlocks(file));

  it('each block carries exactly one disposition: walkthrough, run, or not-run with its reason', () => {
    const unmarked = blocks.filter((block) => block.markers.filter((marker) => DISPOSITION.test(marker)).length !== 1);
    expect(unmarked.map((block) => `${block.file}:${block.line}: ${block.markers.join(' | ') || 'no marker'}`)).toEqual([]);
  });

  it('the walkthroughs named in the docs are the ones readme-walkthroughs.test.ts runs', () => {
    const named = blocks.flatMap((block) => block.markers.flatMap((marker) => /^walkthrough:([\w-]+)$/.exec(marker)?.[1] ?? []));
    expect(named.sort()).toEqual([...WALKTHROUGHS].sort());
  });

  it('most blocks run (the count of each kind, for the record)', () => {
    const kind = (markers: string[]) => markers.find((marker) => DISPOSITION.test(marker))?.replace(/[:\s].*/, '') ?? 'none';
    const counts: Record<string, number> = {};
    for (const block of blocks) counts[kind(block.markers)] = (counts[kind(block.markers)] ?? 0) + 1;
    console.log(`doc command blocks: ${JSON.stringify(counts)}`);
    expect((counts.run ?? 0) + (counts.walkthrough ?? 0)).toBeGreaterThan(counts['not-run'] ?? 0);
  });
});

/** What a person does between blocks, named by `<!-- run:SESSION:step NAME -->`. */
const STEPS: Record<string, (gateway: { url: string; dataDir: string }) => Promise<void>> = {
  /** The README's tour: the agent's key cannot open the approvals; the admin key approves the call in the console. */
  async 'console-approve'({ url, dataDir }) {
    const browser = await launchChromium();
    try {
      const agent = await signIn(browser, url, readFileSync(join(dataDir, 'demo-key'), 'utf8').trim());
      expect((await agent.page.goto(`${url}/console/approvals`))?.status()).toBe(403);
      await agent.context.close();
      const approver = await signIn(browser, url, readFileSync(join(dataDir, 'demo-admin-key'), 'utf8').trim());
      await approver.page.goto(`${url}/console/approvals`);
      await submit(approver.page, '[data-approval] button[value="approve"]');
      expect(await text(approver.page, '[data-role="state"]')).toBe('executed');
    } finally {
      await browser.close();
    }
  },
};

/** Variables carry from block to block as one shell session would keep them. */
const prelude = (state: string) => [
  `if [ -f '${state}' ]; then . '${state}'; fi`,
  `trap "export -p > '${state}'" EXIT`,
  'curl() { command curl --fail-with-body "$@"; }',
  '',
].join('\n');

for (const file of docFiles()) {
  for (const session of sessionsOf(file)) {
    describe(`${file} › run:${session}`, () => {
      it('runs as written and prints what the doc shows', async () => {
        const dataDir = mkdtempSync(join(tmpdir(), `toolgate-doc-${session}-`));
        const port = await freePort();
        const env = scratchEnv(dataDir, port);
        const asHere = (code: string) => code.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`).replaceAll('.toolgate/', `${dataDir}/`);
        const state = join(dataDir, 'session.env');
        let gateway: ReturnType<typeof startGateway> | undefined;
        try {
          for (const step of sessionSteps(file, session)) {
            const where = `${file}:${step.line}`;
            if (step.kind === 'gateway') {
              gateway = startGateway(asHere(step.code), env);
              await gateway.listening;
            } else if (step.kind === 'step') {
              const take = STEPS[step.name];
              if (!take) throw new Error(`${where}: no step named ${step.name} in doc-commands.test.ts`);
              await take({ url: `http://127.0.0.1:${port}`, dataDir });
            } else {
              const run = runBlock(prelude(state) + asHere(step.code), env);
              expect({ where, code: run.code, output: run.output }).toMatchObject({ code: 0 });
              for (const promise of promisedOutput(asHere(step.code))) {
                expect(printed(run.output, promise), `${where} promises: ${promise}\nthe run printed:\n${run.output}`).toBe(true);
              }
            }
          }
        } finally {
          await gateway?.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }, 300_000);
    });
  }
}
