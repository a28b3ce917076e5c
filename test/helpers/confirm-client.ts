import { serve, type ServerType } from '@hono/node-server';
import type { testGateway } from './gateway.ts';

/**
 * A gateway served on 127.0.0.1 (real HTTP), with what the confirm tests do through it: raw
 * 2026-07-28 MCP requests as a client sends them, and the console's confirm page as a browser
 * uses it (sign-in cookie, the page's form token, same-origin form posts).
 */

export const MODERN = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

/** The per-request envelope with the given client capabilities. */
export const envelope = (capabilities: Record<string, unknown> = {}) => ({ 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': capabilities });
export const URL_ELICITATION = { elicitation: { url: {} } };
export const WITH_TASKS = { extensions: { [TASKS]: {} } };

export interface RpcAnswer {
  status: number;
  body: { id?: unknown; result?: Record<string, unknown> & { content?: Array<{ text: string }>; isError?: boolean; _meta?: Record<string, unknown> }; error?: { code: number; message: string } };
}

export interface ServedGateway {
  url: string;
  rpc(method: string, params: Record<string, unknown>, options?: { key?: string; capabilities?: Record<string, unknown> }): Promise<RpcAnswer>;
  api(path: string, init?: { key: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

export async function serveGateway(gw: Awaited<ReturnType<typeof testGateway>>): Promise<ServedGateway> {
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: gw.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let id = 1;
  return {
    url,
    async rpc(method, params, options = {}) {
      const name = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
      const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${options.key ?? 'agent'}`, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}) };
      const body = { jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: envelope(options.capabilities) } };
      const response = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as RpcAnswer['body'] };
    },
    api: (path, init) => fetch(`${url}${path}`, { method: init?.json !== undefined ? 'POST' : 'GET', headers: { authorization: `Bearer ${init?.key}`, ...(init?.json !== undefined ? { 'content-type': 'application/json' } : {}) }, body: init?.json !== undefined ? JSON.stringify(init.json) : undefined }),
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A browser's console session: its cookie and the form token its pages carry. */
export interface ConsoleSession {
  cookie: string;
  get(path: string): Promise<Response>;
  /** Posts a form as the console's own page does (same origin, the session's form token unless `csrf` says otherwise). */
  post(path: string, fields: Record<string, string>, options?: { csrf?: string | null }): Promise<Response>;
}

/** Signs in as a browser would (the sign-in form, posted from the console's origin); `next` as the sign-in page carried it. */
export async function signInConsole(url: string, key: string, next?: string): Promise<ConsoleSession & { location: string | null }> {
  const form = new URLSearchParams({ credential: key, ...(next ? { next } : {}) });
  const signedIn = await fetch(`${url}/console/sign-in`, { method: 'POST', redirect: 'manual', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url, 'sec-fetch-site': 'same-origin' } });
  if (signedIn.status !== 303) throw new Error(`sign-in as ${key} answered ${signedIn.status}`);
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
  const get = (path: string) => fetch(`${url}${path}`, { redirect: 'manual', headers: { cookie } });
  const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(await (await get('/console/confirm')).text())?.[1] ?? '';
  return {
    cookie,
    location: signedIn.headers.get('location'),
    get,
    post: (path, fields, options = {}) => {
      const token = options.csrf === undefined ? csrf : options.csrf;
      const body = new URLSearchParams({ ...fields, ...(token !== null ? { _csrf: token } : {}) });
      return fetch(`${url}${path}`, { method: 'POST', redirect: 'manual', body, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: url, 'sec-fetch-site': 'same-origin' } });
    },
  };
}
