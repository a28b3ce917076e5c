import { beforeAll, describe, expect, it } from 'vitest';
import { loadConditionEngine } from '../../lib/governance/conditions/condition.ts';
import demoManifest from '../../examples/demo/manifest.json' with { type: 'json' };
import { SecretGrants } from '../../lib/crypto/secret-grants.ts';
import { EgressPolicy } from '../../lib/egress/policy.ts';
import { createRuntimeGateway } from '../../lib/http/runtime-gateway.ts';
import { defaultExecutorKinds } from '../../lib/registry/executors/index.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { MANIFEST_CHECKS } from '../../lib/registry/manifest/checks.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { loadPublished } from '../../lib/registry/manifest/manifest-store.ts';
import { builtinsForUncheckedManifest } from '../../lib/tools/tenant-tools.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';

// The entrypoints (functions/worker.ts, lambda.ts, deno.ts) seed the bundled demo manifest as
// checked (manifestsChecked): this test is the check that makes that claim true. If a publish
// check is added or tightened (MANIFEST_CHECKS changes) and the demo no longer passes, it fails.
const DEMO_GRANTS = { TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET' };
const demo = demoManifest as unknown as Manifest;

// The demo's rules have conditions: a publish loads the CEL engine first (admin route), as here.
beforeAll(async () => { await loadConditionEngine(); });

describe('bundled seed manifests', () => {
  for (const validator of [createCfworkerValidator(), createAjvValidator()]) {
    it(`the demo manifest passes the publish checks (${validator.engine})`, () => {
      const confinement = { secretGrants: SecretGrants.fromEnv(DEMO_GRANTS), egress: EgressPolicy.fromEnv({ TOOLGATE_EGRESS_ALLOW: new URL(demo.execution_environment?.url ?? 'http://127.0.0.1:8788').host }) };
      // Egress is the operator's setting (every request is checked against it too): the demo's
      // exec-server is on loopback, which a development operator allows.
      const checked = loadManifest(structuredClone(demoManifest), { validator, kinds: defaultExecutorKinds(), builtins: builtinsForUncheckedManifest, confinement });
      expect(checked.ok ? [] : checked.problems).toEqual([]);
    });
  }

  it('a seed declared checked is stored with this gateway\'s stamp; an undeclared one is not', async () => {
    const env = { TOOLGATE_STORE: 'memory', ...DEMO_GRANTS };
    const stamped = createRuntimeGateway({ runtime: 'workers', env, manifests: [demo], manifestsChecked: true });
    await stamped.ready;
    expect((await loadPublished(stamped.store, demo.tenant, demo.version))?.checked).toBe(MANIFEST_CHECKS);

    const plain = createRuntimeGateway({ runtime: 'workers', env, manifests: [demo] });
    await plain.ready;
    expect((await loadPublished(plain.store, demo.tenant, demo.version))?.checked).toBeUndefined();
  });

  it('a seed declared checked that is in fact broken still fails only its tool, typed, not the gateway', async () => {
    // The stamp skips the schema lint; it must not make a broken schema compile or crash dispatch.
    const broken = structuredClone(demo) as Manifest;
    broken.version = 'broken-1';
    const echo = broken.tools.find((t) => t.name === 'echo');
    if (!echo) throw new Error('the demo has an echo tool');
    echo.input_schema = { type: 'object', properties: { text: { type: 'nonsense-type' } } } as unknown as typeof echo.input_schema;
    const key = 'tg_seed_test_key_0123456789abcdef';
    const gateway = createRuntimeGateway({ runtime: 'workers', env: { TOOLGATE_STORE: 'memory', TOOLGATE_DEMO_KEY: key, ...DEMO_GRANTS }, manifests: [broken], manifestsChecked: true, log: () => {} });
    const response = await gateway.fetch(new Request('http://gateway.test/v1/dispatch', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: 't', calls: [{ call_id: 'c1', name: 'echo', arguments: { text: 'hi' } }] }),
    }));
    expect(response.status).toBe(200);
    const result = ((await response.json()) as { results: Array<{ status: string; content?: unknown }> }).results[0];
    // Refused, never run: a schema error (ajv) or no argument matching the broken type (the
    // eval-free engine, which answers a checked schema's first calls on ajv too: tiered.ts).
    expect(['error', 'invalid_arguments']).toContain(result.status);
    expect(result.content).not.toBe('hi');
  });
});
