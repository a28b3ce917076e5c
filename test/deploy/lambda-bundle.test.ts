import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/processes.ts';
import { fromLambdaResult, toHttpApiEvent } from '../e2e/runtimes/lambda-events.ts';
import { startLambdaEnvironment } from '../e2e/runtimes/lambda-environment.ts';
import { buildLambdaBundle } from './serverless-config.ts';

/**
 * The artifact `serverless deploy` would upload: functions/lambda.ts bundled with the esbuild
 * options in serverless.yml, into a folder with no node_modules near it (so nothing can be
 * resolved at run time), then cold-started in a fresh Node 22 process and invoked.
 */
describe('the Lambda bundle', () => {
  let dir: string;
  let bundle: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-lambda-bundle-'));
    bundle = await buildLambdaBundle(dir);
    console.info(JSON.stringify({ event: 'lambda.bundle.built', bytes: statSync(bundle).size, sourcemap_bytes: statSync(`${bundle}.map`).size }));
  }, 60_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers GET /healthz from an API Gateway v2 event on a memory store', async () => {
    const environment = await startLambdaEnvironment(bundle, { TOOLGATE_STORE: 'memory', AWS_REGION: 'eu-west-1', NODE_OPTIONS: '--enable-source-maps' });
    try {
      const response = fromLambdaResult(await environment.invoke(await toHttpApiEvent(new Request('https://gateway/healthz'))));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ status: 'ok', store: 'memory', validator: 'ajv' });
    } finally {
      await environment.stop();
    }
  });

  it('exports the scheduled sweep, which runs on the bundle alone', () => {
    const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)}); console.log(JSON.stringify(await m.sweep()));`;
    const env = { PATH: process.env.PATH ?? '', TOOLGATE_STORE: 'memory', AWS_REGION: 'eu-west-1' };
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toEqual({ reminded: 0, expired: 0, dropped: 0, failed: 0 });
  });

  it('fails its cold start inside Lambda when the demo tenant points at a loopback exec-server', async () => {
    const inside = { AWS_LAMBDA_FUNCTION_NAME: 'toolgate-prod-gateway', AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' };
    const env = { TOOLGATE_STORE: 'memory', AWS_REGION: 'eu-west-1', TOOLGATE_DEMO_KEY: 'tg_bundle_test_key_0123456789abcd', TOOLGATE_DEMO_EXEC_URL: 'http://127.0.0.1:8788', ...inside };
    await expect(startLambdaEnvironment(bundle, env)).rejects.toThrow(/Runtime\.InitError: tenant "demo": execution_environment http:\/\/127\.0\.0\.1:8788 is on this machine, and a Lambda function has no local exec-server/);
  });
});
