import { describe, expect, it } from 'vitest';
import { AuditRecorder } from '../../lib/audit/recorder.ts';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { MANIFEST_CHECKS } from '../../lib/registry/manifest/checks.ts';
import { activateManifest, loadPublished, manifestKey, publishManifest } from '../../lib/registry/manifest/manifest-store.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import type { CompileOptions, SchemaValidator } from '../../lib/validation/validator.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';

const ENGINES: Array<[string, () => SchemaValidator]> = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

/** An echo tool (it answers `text`) with its own schema for `text`, and the schema's `$id` if given. */
function echoTool(name: string, text: JsonSchema, $id?: string): unknown {
  const input_schema = { ...($id ? { $id } : {}), type: 'object', properties: { text }, required: ['text'], additionalProperties: false };
  return { name, description: `${name} echoes`, tier: 'read', input_schema, executor: { kind: 'builtin', name: 'echo' } };
}

/** The engine, with every compile recorded: which schema, and whether it came as checked at publish. */
function recording(validator: SchemaValidator) {
  const compiles: Array<{ schema: JsonSchema; options: CompileOptions | undefined }> = [];
  const wrapped: SchemaValidator = {
    engine: validator.engine,
    check: (schema) => validator.check(schema),
    compile: (schema, options) => {
      compiles.push({ schema, options });
      return validator.compile(schema, options);
    },
  };
  return { validator: wrapped, compiles };
}

type Result = { call_id: string; status: string; content: string };

async function dispatch(gw: Awaited<ReturnType<typeof testGateway>>, key: string, calls: Array<{ call_id: string; name: string; text: string }>) {
  const json = { thread_id: `t-${Math.random()}`, calls: calls.map((c) => ({ call_id: c.call_id, name: c.name, arguments: { text: c.text } })), parallel: true };
  const response = await gw.request('/v1/dispatch', { key, json });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Result[] }).results;
}

/** Writes a manifest into the store as an older gateway (or an operator's script) would: no publish checks. */
async function storeDirectly(store: MemoryStore, manifest: Manifest, checked?: string) {
  const audit = new AuditRecorder(store);
  await publishManifest(store, audit, manifest, 'old-gateway');
  if (checked !== undefined) {
    const record = await store.get(manifestKey(manifest.tenant, manifest.version));
    await store.put(manifestKey(manifest.tenant, manifest.version), { ...record!, data: { ...record!.data, checked } });
  }
  await activateManifest(store, audit, manifest.tenant, manifest.version, 'old-gateway');
}

// A schema the publish checks refuse (a $ref to nothing), beside a sound tool.
const BROKEN = baseManifest({ tools: [echoTool('broken', { $ref: '#/$defs/missing' }), echoTool('sound', { type: 'string' })] });

describe.each(ENGINES)('tool schemas compile lazily, per tool (%s)', (_engine, engine) => {
  it('a schema that fails to compile fails its own calls with a typed error, every time, and no other tool', async () => {
    const store = new MemoryStore();
    await storeDirectly(store, BROKEN);
    const { validator, compiles } = recording(engine());
    const gw = await testGateway([], { 'acme-key': { tenant: 'acme' } }, { store, validator });
    for (let round = 0; round < 2; round++) {
      const results = await dispatch(gw, 'acme-key', [
        { call_id: 'b', name: 'broken', text: 'x' },
        { call_id: 's', name: 'sound', text: 'still here' },
      ]);
      expect(results[0]).toMatchObject({ call_id: 'b', status: 'error' });
      expect(results[0].content).toMatch(/^Tool `broken` has an invalid input schema: .*#\/\$defs\/missing/);
      expect(results[1]).toMatchObject({ call_id: 's', status: 'ok', content: 'still here' });
    }
    // Compiled once each, on first use (the failure is remembered), and checked, as nothing vouched for them.
    expect(compiles).toHaveLength(2);
    expect(compiles.every((c) => !c.options?.checked)).toBe(true);
  });

  it('trusts a stored manifest only when its record says it passed these very checks', async () => {
    // An older gateway's stamp (or a forged-looking one) is not these checks: the schema is checked when compiled.
    for (const stamp of ['toolgate.publish-checks/0', 'yes', undefined]) {
      const store = new MemoryStore();
      await storeDirectly(store, BROKEN, stamp);
      const { validator, compiles } = recording(engine());
      const gw = await testGateway([], { 'acme-key': { tenant: 'acme' } }, { store, validator });
      const [broken] = await dispatch(gw, 'acme-key', [{ call_id: 'b', name: 'broken', text: 'x' }]);
      expect(broken.status).toBe('error');
      expect(compiles[0].options?.checked).toBeFalsy();
    }
  });

  it('publishing through the checks stamps the record, and its schemas then compile as checked', async () => {
    const { validator, compiles } = recording(engine());
    const gw = await testGateway([], { 'admin-key': { tenant: 'acme', scopes: ['admin'] }, 'acme-key': { tenant: 'acme' } }, { validator });
    const manifest = baseManifest({ tools: [echoTool('short', { type: 'string', maxLength: 3 })] });
    expect((await gw.request('/v1/admin/manifests', { key: 'admin-key', json: manifest })).status).toBe(201);
    // A tenant admin cannot smuggle the stamp in through the body: the record's field is the gateway's.
    const smuggled = { ...baseManifest({ version: '2', tools: [echoTool('broken', { $ref: '#/$defs/missing' })] }), checked: MANIFEST_CHECKS };
    expect((await gw.request('/v1/admin/manifests', { key: 'admin-key', json: smuggled })).status).toBe(400);
    expect((await gw.request('/v1/admin/manifests/1/activate', { key: 'admin-key', method: 'POST' })).status).toBe(200);
    expect((await loadPublished(gw.store, 'acme', '1'))?.checked).toBe(MANIFEST_CHECKS);
    const results = await dispatch(gw, 'acme-key', [
      { call_id: 'a', name: 'short', text: 'abc' },
      { call_id: 'b', name: 'short', text: 'abcd' },
    ]);
    expect(results.map((r) => r.status)).toEqual(['ok', 'invalid_arguments']);
    expect(compiles.filter((c) => c.options?.checked)).toHaveLength(1);
  });

  it('a new manifest version never reuses the validators of the one before', async () => {
    const gw = await testGateway([], { 'admin-key': { tenant: 'acme', scopes: ['admin'] }, 'acme-key': { tenant: 'acme' } }, { validator: engine(), manifestCacheMs: 0 });
    const publish = async (version: string, text: JsonSchema) => {
      expect((await gw.request('/v1/admin/manifests', { key: 'admin-key', json: baseManifest({ version, tools: [echoTool('lookup', text, 'https://tools.example/lookup')] }) })).status).toBe(201);
      expect((await gw.request(`/v1/admin/manifests/${version}/activate`, { key: 'admin-key', method: 'POST' })).status).toBe(200);
    };
    const statuses = async () => (await dispatch(gw, 'acme-key', [{ call_id: 'a', name: 'lookup', text: 'abc' }, { call_id: 'b', name: 'lookup', text: 'abcdefghij' }])).map((r) => r.status);
    // The same tool name, the same $id (ajv keeps schemas by $id), a stricter rule in version 2.
    await publish('1', { type: 'string', maxLength: 20 });
    expect(await statuses()).toEqual(['ok', 'ok']);
    await publish('2', { type: 'string', maxLength: 5 });
    expect(await statuses()).toEqual(['ok', 'invalid_arguments']);
    // And back: the rollback's runtime is built anew, with version 1's rule.
    expect((await gw.request('/v1/admin/manifests/rollback', { key: 'admin-key', method: 'POST' })).status).toBe(200);
    expect(await statuses()).toEqual(['ok', 'ok']);
  });

  it('two tenants with a tool of the same name (and $id) but different schemas never share a validator', async () => {
    // One engine for the whole gateway, as in production: ajv's instances are shared by every tenant.
    const gw = await testGateway([], {
      'acme-admin': { tenant: 'acme', scopes: ['admin'] },
      'beta-admin': { tenant: 'beta', scopes: ['admin'] },
      'acme-key': { tenant: 'acme' },
      'beta-key': { tenant: 'beta' },
    }, { validator: engine() });
    const publish = async (tenant: string, text: JsonSchema) => {
      const manifest = baseManifest({ tenant, tools: [echoTool('lookup', text, 'https://tools.example/lookup')] });
      expect((await gw.request('/v1/admin/manifests', { key: `${tenant}-admin`, json: manifest })).status).toBe(201);
      expect((await gw.request('/v1/admin/manifests/1/activate', { key: `${tenant}-admin`, method: 'POST' })).status).toBe(200);
    };
    await publish('acme', { type: 'string', maxLength: 3 });
    await publish('beta', { type: 'string', minLength: 10 });
    const calls = [
      { call_id: 'short', name: 'lookup', text: 'abc' },
      { call_id: 'long', name: 'lookup', text: 'abcdefghijkl' },
    ];
    // Alternating, so each tenant's first compile happens after the other's.
    for (let round = 0; round < 2; round++) {
      expect((await dispatch(gw, 'acme-key', calls)).map((r) => r.status)).toEqual(['ok', 'invalid_arguments']);
      expect((await dispatch(gw, 'beta-key', calls)).map((r) => r.status)).toEqual(['invalid_arguments', 'ok']);
    }
  });
});
