import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, CreateMessageResultSchema, ElicitResultSchema, ErrorCode, ListRootsResultSchema, isInitializeRequest, ListToolsRequestSchema, McpError, SetLevelRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema, type CallToolResult, type LoggingLevel, type ServerNotification, type ServerRequest, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { PNG_1X1 } from './content.ts';

/**
 * The MCP server the official conformance suite (@modelcontextprotocol/conformance 0.1.16) expects
 * behind the URL it tests: every tool, resource, prompt and completion its server scenarios call,
 * answering what each scenario's requirements say (the suite prints them: `conformance list
 * --server`, and each scenario's description). The suite's own reference server is not in its npm
 * package; this one is written from those requirements with the official SDK v1 (`McpServer`),
 * in Streamable HTTP with sessions, on 127.0.0.1. toolgate imports it into a tenant, and the suite
 * runs against the tenant's /mcp (scripts/mcp-conformance).
 */

export interface ConformanceUpstream {
  /** The Streamable HTTP endpoint. */
  url: string;
  close(): Promise<void>;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

interface FixtureTool {
  tool: Tool;
  /** Offered (listed and callable) only in sessions whose client declared this capability. */
  needs?: 'sampling';
  run(args: Record<string, unknown>, extra: Extra, session: SessionState): Promise<CallToolResult>;
}

interface SessionState {
  /** The least severe level the client asked to hear (`logging/setLevel`); everything when unset. */
  logLevel?: LoggingLevel;
  subscriptions: Set<string>;
}

/** A WAV file of one silent 16-bit mono sample at 8 kHz: the smallest real audio there is. */
function silentWav(): string {
  const header = Buffer.alloc(46);
  header.write('RIFF', 0);
  header.writeUInt32LE(38, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28); // bytes per second
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(2, 40);
  return header.toString('base64');
}

const LOG_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const NO_ARGUMENTS = { type: 'object', properties: {} } as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** A server→client request the client could not answer becomes the tool's error, as the scenarios ask. */
async function askClient(ask: () => Promise<string>, what: string): Promise<CallToolResult> {
  try {
    return text(await ask());
  } catch (error) {
    return { isError: true, content: [{ type: 'text', text: `${what} failed: ${error instanceof Error ? error.message : String(error)}` }] };
  }
}

function elicit(extra: Extra, message: string, requestedSchema: Record<string, unknown>, label: string): Promise<CallToolResult> {
  return askClient(async () => {
    const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } } as ServerRequest, ElicitResultSchema);
    return `${label}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }, 'elicitation');
}

async function notifyLog(extra: Extra, session: SessionState, level: LoggingLevel, data: string): Promise<void> {
  if (session.logLevel && LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(session.logLevel)) return;
  await extra.sendNotification({ method: 'notifications/message', params: { level, logger: 'conformance-upstream', data } });
}

const TOOLS: FixtureTool[] = [
  {
    tool: { name: 'test_simple_text', description: 'Answers one text block.', inputSchema: NO_ARGUMENTS },
    run: async () => text('This is a simple text response for testing.'),
  },
  {
    tool: { name: 'test_image_content', description: 'Answers a 1x1 PNG image.', inputSchema: NO_ARGUMENTS },
    run: async () => ({ content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] }),
  },
  {
    tool: { name: 'test_audio_content', description: 'Answers a short WAV audio clip.', inputSchema: NO_ARGUMENTS },
    run: async () => ({ content: [{ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }] }),
  },
  {
    tool: { name: 'test_embedded_resource', description: 'Answers an embedded text resource.', inputSchema: NO_ARGUMENTS },
    run: async () => ({ content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] }),
  },
  {
    tool: { name: 'test_multiple_content_types', description: 'Answers text, an image and an embedded resource.', inputSchema: NO_ARGUMENTS },
    run: async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
      ],
    }),
  },
  {
    tool: { name: 'test_tool_with_logging', description: 'Sends three info log messages while it runs.', inputSchema: NO_ARGUMENTS },
    async run(_args, extra, session) {
      await notifyLog(extra, session, 'info', 'Tool execution started');
      await sleep(50);
      await notifyLog(extra, session, 'info', 'Tool processing data');
      await sleep(50);
      await notifyLog(extra, session, 'info', 'Tool execution completed');
      return text('Tool with logging executed successfully');
    },
  },
  {
    tool: { name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100 when the call has a progress token.', inputSchema: NO_ARGUMENTS },
    async run(_args, extra) {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `${progress} of 100` } });
        if (progress < 100) await sleep(50);
      }
      return text('Tool with progress executed successfully');
    },
  },
  {
    tool: { name: 'test_error_handling', description: 'Always fails, as a tool error.', inputSchema: NO_ARGUMENTS },
    run: async () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
  },
  {
    tool: { name: 'test_sampling', description: 'Asks the client\'s model for a completion (sampling/createMessage).', inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] } },
    run: (args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }], maxTokens: 100 } } as ServerRequest, CreateMessageResultSchema);
        return `LLM response: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`;
      }, 'sampling'),
  },
  {
    tool: { name: 'test_elicitation', description: 'Asks the user for a username and email (elicitation/create).', inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] } },
    run: (args, extra) =>
      elicit(extra, String(args.message), {
        type: 'object',
        properties: { username: { type: 'string', description: 'User\'s response' }, email: { type: 'string', description: 'User\'s email address' } },
        required: ['username', 'email'],
      }, 'User response'),
  },
  {
    tool: { name: 'test_elicitation_sep1034_defaults', description: 'Asks the user for a form whose every field has a default (SEP-1034).', inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      elicit(extra, 'Please review the form; every field has a default', {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      }, 'Elicitation completed'),
  },
  {
    tool: { name: 'test_elicitation_sep1330_enums', description: 'Asks the user to choose from each kind of enum (SEP-1330).', inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      elicit(extra, 'Please choose an option in each field', {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'One option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', description: 'One titled option', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
          legacyEnum: { type: 'string', description: 'One option (enumNames, deprecated)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', description: 'Some options', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: { type: 'array', description: 'Some titled options', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
        },
        required: [],
      }, 'Elicitation completed'),
  },
  // The 2026 prerelease's Multi Round-Trip scenarios (input-required-result-*): this legacy server
  // asks its client during the call, and toolgate turns each request into an input_required answer
  // for the 2026-07-28 client (lib/mcp/relay). The keys are toolgate's (reply ids), not these tools'.
  {
    tool: { name: 'test_input_required_result_elicitation', description: 'Asks the user for a name, then greets them.', inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } as ServerRequest, ElicitResultSchema);
        return `Hello, ${String(answer.content?.name ?? 'stranger')}!`;
      }, 'elicitation'),
  },
  {
    tool: { name: 'test_input_required_result_sampling', description: "Asks the client's model for the capital of France.", inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 } } as ServerRequest, CreateMessageResultSchema);
        return `The model said: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`;
      }, 'sampling'),
  },
  {
    tool: { name: 'test_input_required_result_list_roots', description: "Lists the client's roots.", inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'roots/list', params: {} } as ServerRequest, ListRootsResultSchema);
        return `Roots: ${answer.roots.map((root) => root.uri).join(', ')}`;
      }, 'roots'),
  },
  {
    tool: { name: 'test_input_required_result_request_state', description: 'Asks for a confirmation, and says state-ok once the answer came back to this very call.', inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } as ServerRequest, ElicitResultSchema);
        return `state-ok: ${answer.action}`;
      }, 'elicitation'),
  },
  {
    tool: { name: 'test_input_required_result_multiple_inputs', description: "Asks the user, the client's model and the client's roots at once.", inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const [name, greeting, roots] = await Promise.all([
          extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } as ServerRequest, ElicitResultSchema),
          extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } } as ServerRequest, CreateMessageResultSchema),
          extra.sendRequest({ method: 'roots/list', params: {} } as ServerRequest, ListRootsResultSchema),
        ]);
        return `${greeting.content.type === 'text' ? greeting.content.text : ''} ${String(name.content?.name)} (${roots.roots.length} roots)`;
      }, 'input'),
  },
  {
    tool: { name: 'test_input_required_result_multi_round', description: 'Asks two questions, one after the other.', inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const name = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Step 1: What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } as ServerRequest, ElicitResultSchema);
        const color = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } } } as ServerRequest, ElicitResultSchema);
        return `${String(name.content?.name)} likes ${String(color.content?.color)}`;
      }, 'elicitation'),
  },
  {
    tool: { name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation.', inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } as ServerRequest, ElicitResultSchema);
        return `confirmed: ${answer.action}`;
      }, 'elicitation'),
  },
  {
    // Asks only what every client that can be asked at all declares here: toolgate relays only what the request declared.
    tool: { name: 'test_input_required_result_capabilities', description: "Asks the client's model for a word.", inputSchema: NO_ARGUMENTS },
    run: (_args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say a word.' } }], maxTokens: 10 } } as ServerRequest, CreateMessageResultSchema);
        return `word: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`;
      }, 'sampling'),
  },
  {
    tool: {
      name: 'json_schema_2020_12_tool',
      description: 'Takes arguments described with JSON Schema 2020-12 ($schema, $defs with an $anchor, allOf/anyOf, if/then/else, additionalProperties).',
      // SEP-1613's keywords (0.1.16 checks them) and SEP-2106's (the 2026 prerelease checks those too).
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' }, contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' } },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    run: async (args) => text(`json_schema_2020_12_tool called with ${JSON.stringify(args)}`),
  },
  {
    // The 2026 prerelease calls it without declaring sampling: a gateway must refuse with -32021, not run it.
    tool: { name: 'test_missing_capability', description: 'Asks the client\'s model for a word; offered only to clients that can sample.', inputSchema: NO_ARGUMENTS },
    needs: 'sampling',
    run: (_args, extra) =>
      askClient(async () => {
        const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say a word.' } }], maxTokens: 10 } } as ServerRequest, CreateMessageResultSchema);
        return `LLM response: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`;
      }, 'sampling'),
  },
  {
    // A 2026-07-28 client mirrors `region` into an Mcp-Param-Region header (SEP-2243; the 2026 prerelease checks the server's validation of it).
    tool: { name: 'test_custom_header', description: 'Echoes a region that 2026-07-28 clients also send as the Mcp-Param-Region header.', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] } },
    run: async (args) => text(`region: ${String(args.region)}`),
  },
  {
    tool: { name: 'test_reconnection', description: 'Closes its event stream mid-call and answers once the client has reconnected (SEP-1699).', inputSchema: NO_ARGUMENTS },
    async run(_args, extra) {
      extra.closeSSEStream?.();
      await sleep(100);
      return text('Reconnection test completed: the answer came after the stream was closed.');
    },
  },
];

/** Words `completion/complete` offers for the prompt's `arg1`. */
const ARG1_WORDS = ['paris', 'park', 'party', 'test', 'testing'];

function registerResources(server: McpServer): void {
  server.registerResource('static-text', 'test://static-text', { description: 'A static text resource.', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { description: 'A static binary resource (a PNG image).', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_1X1 }],
  }));
  server.registerResource('watched-resource', 'test://watched-resource', { description: 'A resource clients may subscribe to.', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }],
  }));
  server.registerResource('template', new ResourceTemplate('test://template/{id}/data', { list: undefined }), { description: 'Data for an id.', mimeType: 'application/json' }, (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
  }));
}

function registerPrompts(server: McpServer): void {
  server.registerPrompt('test_simple_prompt', { description: 'A prompt without arguments.' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt('test_prompt_with_arguments', {
    description: 'A prompt with two arguments.',
    argsSchema: {
      arg1: completable(z.string().describe('First test argument'), (value) => ARG1_WORDS.filter((word) => word.startsWith(value))),
      arg2: z.string().describe('Second test argument'),
    },
  }, ({ arg1, arg2 }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
  }));
  server.registerPrompt('test_prompt_with_embedded_resource', {
    description: 'A prompt that embeds a resource.',
    argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') },
  }, ({ resourceUri }) => ({
    messages: [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }));
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image.' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}

/** One session's server: tools with their JSON Schemas as written (McpServer's own tool registry would rewrite them from zod as draft-07). */
function conformanceServer(): McpServer {
  const server = new McpServer(
    { name: 'conformance-upstream', version: '1.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} } },
  );
  const session: SessionState = { subscriptions: new Set() };
  const offered = () => TOOLS.filter((t) => !t.needs || server.server.getClientCapabilities()?.[t.needs] !== undefined);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: offered().map((t) => t.tool) }));
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const found = offered().find((t) => t.tool.name === request.params.name);
    if (!found) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return found.run(request.params.arguments ?? {}, extra, session);
  });
  server.server.setRequestHandler(SetLevelRequestSchema, (request) => {
    session.logLevel = request.params.level;
    return {};
  });
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    session.subscriptions.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    session.subscriptions.delete(request.params.uri);
    return {};
  });
  registerResources(server);
  registerPrompts(server);
  return server;
}

/** Starts the server on 127.0.0.1 (a free port): sessions as the SDK keeps them, each with its own event store (stream resumption). */
export async function startConformanceUpstream(): Promise<ConformanceUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    if ((req.url ?? '').split('?')[0] !== '/mcp') { res.writeHead(404).end('no such endpoint'); return; }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (!transport) { res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}'); return; }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}');
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: 500,
      onsessioninitialized: (id) => { sessions.set(id, transport); },
      onsessionclosed: (id) => { sessions.delete(id); },
    });
    await conformanceServer().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try { body = raw ? JSON.parse(raw) : undefined; } catch { body = undefined; }
      handle(req, res, body).catch((error: unknown) => { if (!res.headersSent) res.writeHead(500).end(String(error)); });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((t) => t.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
