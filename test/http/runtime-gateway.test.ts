import { describe, expect, it } from 'vitest';
import demoManifest from '../../examples/demo/manifest.json' with { type: 'json' };
import { silentLogger } from '../../lib/dispatch/events.ts';
import { createRuntimeGateway, RuntimeConfigError } from '../../lib/http/runtime-gateway.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';

const demo = demoManifest as Manifest;
const base = { TOOLGATE_STORE: 'memory', TOOLGATE_DEMO_KEY: 'tg_runtime_gateway_test_key_0123', DEMO_EXEC_SECRET: 'runtime-gateway-test-secret', TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET' };

function lambdaGateway(env: Record<string, string>, manifests: Manifest[] = [demo]) {
  return createRuntimeGateway({ runtime: 'lambda', env: { ...base, ...env }, manifests, log: silentLogger });
}

describe('the Lambda refusal of an exec-server on loopback', () => {
  it.each([
    ['AWS_LAMBDA_FUNCTION_NAME', { AWS_LAMBDA_FUNCTION_NAME: 'toolgate-prod-gateway' }],
    ['AWS_EXECUTION_ENV', { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' }],
  ])('refuses the demo tenant at start inside Lambda (%s set), naming the URL and what to do', (_, inside) => {
    expect(() => lambdaGateway({ ...inside, TOOLGATE_DEMO_EXEC_URL: 'http://127.0.0.1:8788' })).toThrow(RuntimeConfigError);
    expect(() => lambdaGateway({ ...inside, TOOLGATE_DEMO_EXEC_URL: 'http://localhost:9000' })).toThrow(/tenant "demo": execution_environment http:\/\/localhost:9000 is on this machine, and a Lambda function has no local exec-server: run `toolgate exec-server`/);
    // The bundled manifest's own URL is loopback too: without the overlay it is refused as well.
    expect(() => lambdaGateway(inside)).toThrow(/http:\/\/127\.0\.0\.1:8788 is on this machine/);
  });

  it('accepts a reachable exec-server inside Lambda', async () => {
    const gateway = lambdaGateway({ AWS_LAMBDA_FUNCTION_NAME: 'toolgate-prod-gateway', TOOLGATE_DEMO_EXEC_URL: 'https://exec.example.com' });
    await gateway.ready;
    await gateway.store.close();
  });

  it('does not apply to ECS or CloudShell, whose AWS_EXECUTION_ENV is not a Lambda one', async () => {
    const gateway = lambdaGateway({ AWS_EXECUTION_ENV: 'AWS_ECS_FARGATE', TOOLGATE_DEMO_EXEC_URL: 'http://127.0.0.1:8788' });
    await gateway.ready;
    await gateway.store.close();
  });

  it('lets the handler run on this machine (tests, a local invoke), where loopback is where the exec-server listens', async () => {
    const gateway = lambdaGateway({ TOOLGATE_DEMO_EXEC_URL: 'http://127.0.0.1:8788' });
    const response = await gateway.fetch(new Request('http://gateway/healthz'));
    expect(await response.json()).toMatchObject({ status: 'ok', store: 'memory' });
    await gateway.store.close();
  });
});
