import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { createRuntimeGateway } from '../../lib/http/runtime-gateway.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { LOOPBACK_EGRESS_ALLOW } from '../helpers/gateway.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startOtlpReceiver } from '../telemetry/otlp-receiver.ts';

const KEY = 'tg_otel_attack_secrets_key_0123456789';
const TOOL_SECRET = 'otel-attack-tool-secret-0001';

/** One secret per schema shape the masking follows; each must stay off the spans with content capture on. */
const SECRETS = {
  property: 'sk-attack-property-0001',
  refSibling: 'sk-attack-ref-sibling-0002',
  refTarget: 'sk-attack-ref-target-0003',
  refNested: 'sk-attack-ref-nested-0004',
  additional: 'sk-attack-additional-0005',
  pattern: 'sk-attack-pattern-0006',
  prefix: 'sk-attack-prefix-0007',
  anyOf: 'sk-attack-anyof-0008',
  thenBranch: 'sk-attack-then-0009',
};

const INPUT_SCHEMA = {
  type: 'object',
  $defs: {
    text: { type: 'string', minLength: 1 },
    secretText: { type: 'string', 'x-sensitive': true },
    box: { type: 'object' },
  },
  properties: {
    property: { type: 'string', 'x-sensitive': true },
    // The mark beside a $ref (2020-12 keeps a $ref's sibling keywords): the common way to mark a shared type.
    refSibling: { $ref: '#/$defs/text', 'x-sensitive': true },
    refTarget: { $ref: '#/$defs/secretText' },
    refNested: { $ref: '#/$defs/box', properties: { pin: { type: 'string', 'x-sensitive': true } } },
    extras: { type: 'object', additionalProperties: { type: 'string', 'x-sensitive': true } },
    patterned: { type: 'object', patternProperties: { '^key_': { type: 'string', 'x-sensitive': true } } },
    tuple: { type: 'array', prefixItems: [{ type: 'string', 'x-sensitive': true }, { type: 'string' }] },
    choice: { anyOf: [{ type: 'object', properties: { token: { type: 'string', 'x-sensitive': true } } }, { type: 'string' }] },
    conditional: { type: 'object', if: { properties: { kind: { const: 'api' } } }, then: { properties: { value: { type: 'string', 'x-sensitive': true } } } },
  },
};

const ARGUMENTS = {
  property: SECRETS.property,
  refSibling: SECRETS.refSibling,
  refTarget: SECRETS.refTarget,
  refNested: { pin: SECRETS.refNested },
  extras: { any: SECRETS.additional },
  patterned: { key_a: SECRETS.pattern },
  tuple: [SECRETS.prefix, 'plain'],
  choice: { token: SECRETS.anyOf },
  conditional: { kind: 'api', value: SECRETS.thenBranch },
};

/**
 * Content capture on (TOOLGATE_OTEL_CAPTURE_CONTENT=true): the arguments on the execute_tool span
 * are masked for every schema shape; nothing marked sensitive reaches the collector.
 */
describe('attack: sensitive arguments on spans with content capture on', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let toolServer: TestServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    toolServer = await startTestServer((_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end('{"done":true}'));
  });
  afterAll(async () => {
    await Promise.all([receiver?.close(), toolServer?.close()]);
  });

  it('masks every sensitive field (properties, $ref with a sibling mark, $ref targets, additional/pattern properties, prefixItems, anyOf, then)', async () => {
    const manifest = validManifest({
      tenant: 'acme',
      policy: { read: 'grant', write: 'grant', execute: 'deny' },
      tools: [{ name: 'connect', description: 'Connects.', tier: 'read', input_schema: INPUT_SCHEMA, executor: { kind: 'http', url: `${toolServer.url}/connect`, secret: 'env:TOOL_SECRET' } }],
    });
    const env = {
      TOOLGATE_DEMO_KEY: KEY,
      TOOLGATE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      TOOL_SECRET,
      TOOLGATE_TENANT_SECRETS: 'acme:TOOL_SECRET',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      TOOLGATE_OTEL_CAPTURE_CONTENT: 'true',
    };
    const gateway = createRuntimeGateway({ runtime: 'node', env, manifests: [manifest], store: new MemoryStore(), log: () => {}, egressTransport: nodeEgressTransport() });
    await gateway.ready;
    const response = await gateway.fetch(
      new Request('http://127.0.0.1/v1/dispatch', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ thread_id: 't-secrets', calls: [{ call_id: 'c1', name: 'connect', arguments: ARGUMENTS }] }),
      }),
    );
    const answer = (await response.json()) as { results: { status: string }[] };
    expect(answer.results[0]!.status).toBe('ok');
    // The tool itself got every value (masking is for what people and collectors see).
    expect(toolServer.requests[0]!.body).toContain(SECRETS.refSibling);
    await gateway.tracer!.shutdown();

    const span = receiver.spans().find((s) => s.name === 'execute_tool connect')!;
    const shown = String(span.attributes['gen_ai.tool.call.arguments']);
    expect(shown).toContain('••••••');
    const exported = receiver.bodies().join('\n');
    for (const [shape, secret] of Object.entries(SECRETS)) expect(exported, shape).not.toContain(secret);
    expect(exported).not.toContain(KEY);
    expect(exported).not.toContain(TOOL_SECRET);
  });
});
