// AWS Lambda entrypoint (API Gateway HTTP API and Function URL events, payload format 2.0).
// Configuration errors fail the cold start with the message in the function's log.
import { handle } from 'hono/aws-lambda';
import type { Hono } from 'hono';
import demoManifest from '../examples/demo/manifest.json' with { type: 'json' };
import { nodeEgressTransport } from '../lib/cli/node-egress.ts';
import { createRuntimeGateway } from '../lib/http/runtime-gateway.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';

const env = process.env;
// Lambda is Node: egress is checked on the resolved addresses the connection uses (TOOLGATE_EGRESS_ALLOW).
const gateway = createRuntimeGateway({ runtime: 'lambda', env, manifests: env.TOOLGATE_DEMO_KEY ? [demoManifest as Manifest] : [], manifestsChecked: true, egressTransport: nodeEgressTransport() });

// hono/aws-lambda only calls fetch(request, bindings); the gateway waits for its seeding first.
export const handler = handle({ fetch: gateway.fetch } as unknown as Hono);

// The scheduled function (serverless.yml, `sweeper`): approval reminders and expiry, with nobody reading the approvals.
export const sweep = () => gateway.sweep();
