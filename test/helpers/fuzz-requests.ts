import { createHmac } from 'node:crypto';
import type { Prng } from './prng.ts';

/**
 * Random and adversarial requests over every route of the gateway, for the fuzz test. Each
 * request starts from a plausible one (right route, right shape, a real key or id) and is bent
 * where attacks bend it: numbers negative, fractional, huge; strings empty, huge, lone
 * surrogates, control characters; `null`, arrays where objects belong, deep nesting; repeated or
 * junk parameters; invalid UTF-8; wrong content types; bad keys. Nothing here may make the
 * gateway answer 5xx, hang, or grow.
 */
export interface FuzzContext {
  adminKey: string;
  readerKey: string;
  approvalIds: string[];
  callIds: string[];
  threadIds: string[];
  slackSecret: string;
  slackApprover: string;
  /** The demo manifest, to publish bent copies of. */
  manifest: Record<string, unknown>;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

type Body = 'dispatch' | 'validate' | 'decision' | 'key' | 'manifest' | 'slack' | 'mcp';

interface Route {
  method: string;
  path: (g: Generator) => string;
  params?: string[];
  body?: Body;
}

const ROUTES: Route[] = [
  { method: 'GET', path: () => '/healthz' },
  { method: 'GET', path: () => '/metrics' },
  { method: 'GET', path: () => '/v1/tools', params: ['format', 'tag'] },
  { method: 'GET', path: (g) => `/v1/tools/${g.segment(g.toolName())}` },
  { method: 'POST', path: (g) => `/v1/tools/${g.segment(g.toolName())}/validate`, body: 'validate' },
  { method: 'POST', path: () => '/v1/dispatch', body: 'dispatch' },
  { method: 'POST', path: () => '/v1/dispatch', body: 'dispatch' },
  { method: 'GET', path: (g) => `/v1/calls/${g.segment(g.callId())}`, params: ['thread_id', 'wait'] },
  { method: 'GET', path: () => '/v1/approvals', params: ['state', 'cursor', 'limit'] },
  { method: 'GET', path: (g) => `/v1/approvals/${g.segment(g.approvalId())}` },
  { method: 'POST', path: (g) => `/v1/approvals/${g.segment(g.approvalId())}`, body: 'decision' },
  { method: 'GET', path: () => '/v1/audit', params: ['thread_id', 'cursor', 'limit'] },
  { method: 'POST', path: () => '/v1/admin/keys', body: 'key' },
  { method: 'POST', path: () => '/v1/admin/manifests', body: 'manifest' },
  { method: 'GET', path: () => '/v1/admin/manifests' },
  { method: 'GET', path: () => '/v1/admin/manifests/diff', params: ['from', 'to'] },
  { method: 'GET', path: (g) => `/v1/admin/manifests/${g.segment(g.version())}` },
  { method: 'POST', path: (g) => `/v1/admin/manifests/${g.segment(g.version())}/activate` },
  { method: 'POST', path: () => '/v1/admin/manifests/rollback' },
  { method: 'POST', path: () => '/v1/slack/interactions', body: 'slack' },
  { method: 'POST', path: () => '/mcp', body: 'mcp' },
  { method: 'POST', path: () => '/mcp', body: 'mcp' },
  { method: 'GET', path: () => '/mcp' },
  { method: 'DELETE', path: () => '/mcp' },
];

const ODD_METHODS = ['PUT', 'PATCH', 'OPTIONS', 'HEAD', 'DELETE', 'POST', 'GET'];
const TOOL_NAMES = ['echo', 'sleep', 'read_file', 'write_file', 'apply_patch', 'shell', 'grep', 'glob', 'nope', 'x'.repeat(65), 'a b', '../echo', ''];
const QUERY_NAMES = ['limit', 'cursor', 'wait', 'state', 'format', 'tag', 'thread_id', 'from', 'to', 'tenant', 'foo', '__proto__', ''];
/** Query values as they appear in a URL: some already percent-encoded (valid or not), some raw. */
const QUERY_VALUES = [
  '-1', '0', '0.5', '1', '2', '200', '201', '500', '501', '1e3', '1e400', 'abc', '', '99999999999999999999', 'NaN', 'Infinity', '-0', '+1', ' 1', '0x10',
  '%', '%ZZ', '%ED%A0%80', '%FF%FE', '%00', '%0A', 'null', '[]', '{}', '__proto__', 'constructor', 'pending', 'approved', 'executed',
  'openai', 'gemini', 'mcp', 'anthropic', 'toolgate', 'demo', 'other', '1,2,,3', 'readme-1', 'fuzz', '1', '%C3%A9', 'é', 'x'.repeat(3000),
];
/** Waits that are valid stay short: a real parked call with wait=25 would hold a request 25 s. */
const WAITS = ['0', '0.5', '1', '-1', '26', '1e1', 'NaN', '', 'abc', '0.0001', '25.5'];
const JSON_VALUES: unknown[] = [
  null, -1, 0, 0.5, -0.5, 1e308, -1e-308, 2 ** 53 + 1, true, false, '', ' ', 'x'.repeat(20_000), [], {}, [null], { '': null },
  '\ud800', 'a\udc00b', '😀', '\u0000', '\u202e', '\n\r', '1e400', '__proto__', JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: { polluted: true } } },
  nest(70), nest(20), Array.from({ length: 2000 }, (_, i) => i), 'grant', 'pending',
];
/** Bodies JSON.stringify cannot produce. */
const RAW_BODIES: Array<string | Buffer> = [
  '', ' ', 'null', '[]', '{}', '"x"', '1', 'true', '{', '{"a":', '{"a":1}}', '\ufeff{}', '{"a":1e400}', '{"a":-1e400}', '{"a":"\\ud800"}', '{"\\udc00":1}',
  '{"__proto__":{"polluted":true}}', '{"a":1,"a":2}', `${'['.repeat(5000)}`, `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'payload=%7B%7D', '\u0000',
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]),
];

function nest(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Percent-encodes like a URL would, except that a lone surrogate (no UTF-8 form) becomes the bytes of one: invalid UTF-8. */
function encode(text: string): string {
  return encodeURIComponent(text.replace(/[\uD800-\uDFFF]/gu, '\u0001')).replaceAll('%01', '%ED%A0%80');
}

class Generator {
  readonly rng: Prng;
  readonly ctx: FuzzContext;

  constructor(rng: Prng, ctx: FuzzContext) {
    this.rng = rng;
    this.ctx = ctx;
  }

  /** A fresh copy: bending a body must never change the pool (or tie a value into itself). */
  value(): unknown {
    return structuredClone(this.rng.pick(JSON_VALUES));
  }

  /** A path segment: mostly encoded, sometimes as is (Node refuses some; the test skips those). */
  segment(text: string): string {
    return this.rng.chance(0.8) ? encode(text) : text;
  }

  toolName = () => this.rng.pick(TOOL_NAMES);
  approvalId = () => (this.rng.chance(0.6) && this.ctx.approvalIds.length ? this.rng.pick(this.ctx.approvalIds) : this.rng.pick(['apr_nope', `apr_${'0'.repeat(24)}`, 'x'.repeat(300), '', '..', this.text()]));
  callId = () => (this.rng.chance(0.6) ? this.rng.pick(this.ctx.callIds) : this.rng.pick(['nope', 'c'.repeat(201), '', '%2F', this.text()]));
  threadId = () => (this.rng.chance(0.7) ? this.rng.pick(this.ctx.threadIds) : this.text());
  version = () => this.rng.pick(['1', '2', 'f1', `f${this.rng.int(40)}`, '..', '-x', 'x'.repeat(65), '', '%2F', '\u00e9']);

  text(): string {
    const v = this.value();
    return typeof v === 'string' ? v : JSON.stringify(v) ?? 'x';
  }

  query(names: string[]): string {
    const parts: string[] = [];
    const count = this.rng.int(4);
    for (let i = 0; i < count; i++) {
      const name = this.rng.chance(0.8) && names.length ? this.rng.pick(names) : this.rng.pick(QUERY_NAMES);
      const value = name === 'wait' ? this.rng.pick(WAITS) : name === 'thread_id' && this.rng.chance(0.5) ? this.threadId() : this.rng.pick(QUERY_VALUES);
      parts.push(this.rng.chance(0.2) ? `${name}=${value}` : `${encode(name)}=${encode(value)}`);
    }
    if (this.rng.chance(0.05)) parts.push(this.rng.pick(['&&&', '=', '%', 'a=1=2', '?']));
    return parts.length ? `?${parts.join('&')}` : '';
  }

  /** Replaces, removes or adds one member somewhere in `value` (a JSON tree), a few times. */
  bend<T>(value: T, times = 1 + this.rng.int(3)): T {
    const copy = structuredClone(value) as unknown;
    for (let i = 0; i < times; i++) {
      const containers: Array<Record<string, unknown> | unknown[]> = [];
      const walk = (node: unknown, depth: number) => {
        if (node === null || typeof node !== 'object' || depth > 8) return;
        containers.push(node as Record<string, unknown>);
        for (const child of Object.values(node)) walk(child, depth + 1);
      };
      walk(copy, 0);
      if (containers.length === 0) return this.value() as T;
      const target = this.rng.pick(containers) as Record<string, unknown>;
      const keys = Object.keys(target);
      const key = keys.length && this.rng.chance(0.8) ? this.rng.pick(keys) : this.rng.pick(['extra', '__proto__', '', '\ud800', 'x'.repeat(500)]);
      if (this.rng.chance(0.15)) delete target[key];
      else target[key] = this.value();
    }
    return copy as T;
  }

  argumentsFor(name: string): unknown {
    switch (name) {
      case 'echo': return { text: this.rng.chance(0.5) ? 'hello' : this.value() };
      case 'sleep': return { ms: this.rng.pick([0, 1, 10, -1, 0.5, 'x', 1e9]) };
      case 'read_file': return { file_path: this.rng.pick(['greet.sh', '../../etc/passwd', '/etc/passwd', '', 'nope.txt', this.text()]), offset: this.rng.pick([undefined, -1, 0.5, 1e12]) };
      case 'write_file': return { file_path: this.rng.pick(['fuzz.txt', '../escape.txt', this.text()]), content: this.text() };
      case 'apply_patch': return { patch: this.rng.pick(['*** Begin Patch\n*** End Patch', 'junk', this.text()]) };
      // Only commands that are harmless if a bent policy ever grants them.
      case 'shell': return { command: this.rng.pick(['ls', 'pwd', 'git status', 'ls -la', 1, null, '']) };
      // Plain patterns only: catastrophic regexes belong to the patterns package's own tests.
      case 'grep': return { pattern: this.rng.pick(['echo', 'a', '', '[', 1]), path: this.rng.pick([undefined, '.', '..', this.text()]) };
      case 'glob': return { pattern: this.rng.pick(['*', '**/*.sh', '', '[', 1]) };
      default: return this.value();
    }
  }

  call(): Record<string, unknown> {
    const name = this.toolName();
    const args = this.argumentsFor(name);
    const call: Record<string, unknown> = { name, arguments: this.rng.chance(0.2) ? JSON.stringify(args) : args };
    if (this.rng.chance(0.8)) call.call_id = this.rng.chance(0.7) ? `fz_${this.rng.int(1e9)}` : this.text();
    return call;
  }

  dispatchBody(): unknown {
    const calls = Array.from({ length: 1 + this.rng.int(3) }, () => this.call());
    const thread_id = this.threadId();
    const shapes = [
      () => ({ thread_id, calls, parallel: this.rng.chance(0.5) }),
      () => ({ thread_id, format: 'openai', tool_calls: calls.map((c, i) => ({ id: c.call_id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }),
      () => ({ thread_id, format: 'anthropic', content: calls.map((c, i) => ({ type: 'tool_use', id: c.call_id ?? `toolu_${i}`, name: c.name, input: c.arguments })) }),
      () => ({ thread_id, format: 'gemini', parts: calls.map((c) => ({ functionCall: { name: c.name, args: c.arguments } })) }),
      () => ({ thread_id, calls: Array.from({ length: 129 }, () => ({ name: 'echo', arguments: { text: 'x' } })) }),
    ];
    const body = this.rng.pick(shapes)();
    return this.rng.chance(0.4) ? this.bend(body) : body;
  }

  mcpBody(): unknown {
    const id = this.rng.chance(0.8) ? this.rng.int(1000) : this.value();
    const call = this.call();
    const messages = [
      { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } },
      { jsonrpc: '2.0', id, method: 'tools/list' },
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: call.name, arguments: call.arguments, _meta: this.rng.chance(0.3) ? { 'toolgate/thread_id': this.threadId(), 'toolgate/call_id': this.text() } : undefined } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id, method: this.text() },
    ];
    const one = this.rng.pick(messages);
    const body = this.rng.chance(0.1) ? [one, this.rng.pick(messages)] : one;
    return this.rng.chance(0.4) ? this.bend(body) : body;
  }

  manifestBody(): unknown {
    const manifest = { ...this.ctx.manifest, version: `f${this.rng.int(40)}` };
    return this.rng.chance(0.8) ? this.bend(manifest) : manifest;
  }

  slackBody(headers: Record<string, string>): Buffer {
    const payload = {
      type: 'block_actions',
      user: { id: this.rng.chance(0.7) ? this.ctx.slackApprover : this.text(), username: 'fuzz' },
      actions: [{ action_id: this.rng.pick(['toolgate_approve', 'toolgate_reject', 'other']), value: this.approvalId() }],
      channel: { id: 'C0FUZZ' },
      container: { message_ts: '1700000000.000100' },
    };
    const text = this.rng.chance(0.1) ? this.text() : new URLSearchParams({ payload: JSON.stringify(this.rng.chance(0.4) ? this.bend(payload) : payload) }).toString();
    if (this.rng.chance(0.6)) {
      const timestamp = String(Math.floor(Date.now() / 1000) - (this.rng.chance(0.1) ? 10_000 : 0));
      headers['x-slack-request-timestamp'] = timestamp;
      headers['x-slack-signature'] = `v0=${createHmac('sha256', this.ctx.slackSecret).update(`v0:${timestamp}:${text}`).digest('hex')}`;
    }
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return Buffer.from(text);
  }

  body(kind: Body, headers: Record<string, string>): Buffer {
    if (kind === 'slack') return this.slackBody(headers);
    if (this.rng.chance(0.12)) {
      const raw = this.rng.pick(RAW_BODIES);
      return typeof raw === 'string' ? Buffer.from(raw) : raw;
    }
    if (this.rng.chance(0.01)) return Buffer.from(JSON.stringify({ thread_id: 'big', calls: [{ name: 'echo', arguments: { text: 'x'.repeat(1_100_000) } }] }));
    const bodies: Record<Exclude<Body, 'slack'>, () => unknown> = {
      dispatch: () => this.dispatchBody(),
      validate: () => this.bend({ arguments: this.argumentsFor(this.toolName()) }),
      decision: () => this.bend({ decision: this.rng.pick(['approve', 'reject']), reason: 'fuzz' }),
      key: () => this.bend({ principal: 'fuzz-key', scopes: ['approvals:read'] }),
      manifest: () => this.manifestBody(),
      mcp: () => this.mcpBody(),
    };
    return Buffer.from(JSON.stringify(bodies[kind]()) ?? 'null');
  }

  headers(route: Route, path: string): Record<string, string> {
    const headers: Record<string, string> = {};
    const auth = this.rng.next();
    if (auth < 0.7) headers.authorization = `Bearer ${this.ctx.adminKey}`;
    else if (auth < 0.8) headers.authorization = `Bearer ${this.ctx.readerKey}`;
    else if (auth < 0.95) headers.authorization = this.rng.pick(['Bearer tg_0000', 'Bearer', 'Basic YTpi', '', `Bearer ${'k'.repeat(5000)}`, 'bearer  x y']);
    if (route.body && route.body !== 'slack') headers['content-type'] = this.rng.chance(0.85) ? 'application/json' : this.rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']);
    if (path.startsWith('/mcp')) headers.accept = this.rng.chance(0.85) ? 'application/json, text/event-stream' : this.rng.pick(['*/*', 'text/html', '']);
    if (this.rng.chance(0.1)) headers['mcp-protocol-version'] = this.rng.pick(['2025-06-18', '1999-01-01', 'x']);
    if (this.rng.chance(0.1)) headers['x-toolgate-tenant'] = this.rng.pick(['demo', 'other', '', 'x'.repeat(300)]);
    if (this.rng.chance(0.1)) headers['idempotency-key'] = this.rng.pick(['k1', '', 'k'.repeat(300), 'é']);
    if (this.rng.chance(0.1)) headers['x-toolgate-thread'] = this.rng.pick(['fuzz', '', 'x'.repeat(300), '../..']);
    if (this.rng.chance(0.04)) headers.origin = this.rng.pick(['http://attacker.example', 'null', '']);
    if (this.rng.chance(0.04)) headers.host = this.rng.pick(['attacker.example', '', 'localhost:1']);
    return headers;
  }

  request(): FuzzRequest {
    const route = this.rng.pick(ROUTES);
    const method = this.rng.chance(0.05) ? this.rng.pick(ODD_METHODS) : route.method;
    const path = route.path(this) + this.query(route.params ?? []);
    const headers = this.headers(route, path);
    const withBody = route.body !== undefined && method !== 'GET' && method !== 'HEAD';
    return { method, path, headers, body: withBody ? this.body(route.body!, headers) : undefined };
  }
}

/** A seeded stream of fuzz requests. */
export function fuzzRequests(rng: Prng, ctx: FuzzContext): () => FuzzRequest {
  const generator = new Generator(rng, ctx);
  return () => generator.request();
}
