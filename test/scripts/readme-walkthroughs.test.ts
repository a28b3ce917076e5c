import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkthroughBlock } from '../../scripts/doc-blocks.ts';
import { fromLambdaResult, toHttpApiEvent } from '../e2e/runtimes/lambda-events.ts';
import { startLambdaEnvironment } from '../e2e/runtimes/lambda-environment.ts';
import { readServerlessConfig } from '../deploy/serverless-config.ts';
import { freePort, REPO_ROOT } from '../helpers/processes.ts';
import { promisedOutput, runBlock, scratchEnv, startGateway, steady } from './doc-shell.ts';

// The guides' walkthroughs run as written: the code block under `<!-- walkthrough:NAME -->` (in
// README.md or docs/), in bash in the project, on a scratch data folder and a free port (the
// doc's 127.0.0.1:8787 becomes it). Each `# ...` line right below a command is output the doc
// promises: it must appear.

describe('the acme walkthrough (docs/manifests.md › A tenant\'s first manifest), as written, on the local gateway', () => {
  let dataDir: string;
  let port: number;
  let gateway: ReturnType<typeof startGateway>;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'toolgate-walkthrough-'));
    port = await freePort();
    gateway = startGateway(walkthroughBlock('acme-gateway'), scratchEnv(dataDir, port));
    await gateway.listening;
  }, 90_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every command succeeds and prints what the doc shows', () => {
    const block = walkthroughBlock('acme');
    expect(block).toContain('127.0.0.1:8787');
    const run = runBlock(block.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`), scratchEnv(dataDir, port));
    expect({ code: run.code, output: run.output }).toMatchObject({ code: 0 });
    const printed = run.output.split('\n').map(steady);
    const promised = promisedOutput(block).map(steady);
    expect(promised.length).toBeGreaterThanOrEqual(11);
    for (const line of promised) expect(printed, `the doc promises: ${line}\nthe run printed:\n${run.output}`).toContain(line);
  }, 180_000);
});

describe('the Lambda walkthrough (docs/deploy.md › AWS Lambda): install what serverless.yml needs, build the bundle offline', () => {
  const block = walkthroughBlock('lambda');
  const [install, ...rest] = block.split('\n');

  it('installs the framework version serverless.yml asks for and every plugin it names', () => {
    const config = readServerlessConfig();
    expect(install).toMatch(/^npm install --no-save /);
    const packages = install.replace(/#.*/, '').trim().split(/\s+/).slice(3);
    expect(packages).toEqual([`serverless@${config.frameworkVersion}`, ...config.plugins]);
  });

  // The install itself reaches the npm registry and is left out; the build runs as written, offline.
  it('builds the bundle as written, and that bundle answers /healthz in a fresh Node', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-walkthrough-lambda-'));
    try {
      const run = runBlock(rest.join('\n'), scratchEnv(dataDir, 0));
      expect({ code: run.code, output: run.output }).toMatchObject({ code: 0 });
      const printed = run.output.split('\n').map(steady);
      for (const line of promisedOutput(rest.join('\n')).map(steady)) expect(printed).toContain(line);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const environment = await startLambdaEnvironment(join(REPO_ROOT, 'dist/lambda/lambda.mjs'), { TOOLGATE_STORE: 'memory', AWS_REGION: 'eu-west-1' });
    try {
      const response = fromLambdaResult(await environment.invoke(await toHttpApiEvent(new Request('https://gateway/healthz'))));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: 'ok', store: 'memory' });
    } finally {
      await environment.stop();
    }
  }, 180_000);
});
