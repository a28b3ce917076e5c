import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { EgressTransport } from '../egress/fetch.ts';

/** Resolves a name to all its addresses; injectable so tests can make any name lead anywhere. */
export type NodeResolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: NodeResolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/**
 * The socket's own lookup: the addresses checked are the addresses connected to, so a name
 * cannot answer one thing to the check and another to the connection (DNS rebinding).
 */
function checkingLookup(resolveHost: NodeResolve, checkAddresses: (addresses: string[]) => void): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolveHost(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        try {
          checkAddresses(found.map((a) => a.address));
          if (wanted.length === 0) throw Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' });
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0].address, wanted[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** Statuses whose Response has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function decoded(message: IncomingMessage): Readable {
  const encoding = (message.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined;
  if (!decoder) return message;
  message.on('error', (error) => decoder.destroy(error));
  return message.pipe(decoder);
}

function toResponse(message: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) headers.append(message.rawHeaders[i], message.rawHeaders[i + 1]);
  const status = message.statusCode ?? 502;
  const empty = method === 'HEAD' || NULL_BODY.has(status);
  if (empty) message.resume();
  const body = empty ? null : (Readable.toWeb(decoded(message)) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: message.statusMessage, headers });
}

async function bodyBytes(init: RequestInit): Promise<{ bytes?: Uint8Array; type?: string }> {
  if (init.body === undefined || init.body === null) return {};
  const wrapped = new Response(init.body);
  return { bytes: new Uint8Array(await wrapped.arrayBuffer()), type: wrapped.headers.get('content-type') ?? undefined };
}

/**
 * Node's egress (Lambda's too): node:http(s) with a lookup that checks every address a host
 * resolves to, on the connection itself. Redirects are never followed (node:http does not).
 * Every request has a connection of its own (TLS sessions are still resumed): a kept-alive
 * socket the server already closed would turn "nothing was sent" into "may have run", and a
 * socket is never shared between policies.
 */
export function nodeEgressTransport(options: { resolve?: NodeResolve } = {}): EgressTransport {
  const resolveHost = options.resolve ?? systemResolve;
  const agents = { 'http:': new HttpAgent({ keepAlive: false }), 'https:': new HttpsAgent({ keepAlive: false }) };
  return {
    checks: 'pinned',
    async fetch(url, init, checkAddresses) {
      const { bytes, type } = await bodyBytes(init);
      const headers = new Headers(init.headers);
      if (type && !headers.has('content-type')) headers.set('content-type', type);
      if (bytes) headers.set('content-length', String(bytes.byteLength));
      const method = (init.method ?? 'GET').toUpperCase();
      const signal = init.signal ?? undefined;
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise<Response>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const request = send(url, {
          method,
          headers: Object.fromEntries(headers),
          agent: agents[url.protocol as 'http:' | 'https:'],
          lookup: checkAddresses ? checkingLookup(resolveHost, checkAddresses) : undefined,
          signal,
        });
        request.once('response', (message) => resolve(toResponse(message, method)));
        // As the runtime's fetch fails: a TypeError whose cause says why (ECONNREFUSED, a refusal, ...).
        request.once('error', (error) => reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error })));
        request.end(bytes);
      });
    },
  };
}
