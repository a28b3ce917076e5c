import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of the gateway for the conformance suite, whose client sends no
 * credentials: it adds `Authorization: Bearer <key>` to a request that carries none and forwards
 * everything else as sent, Host and Origin included (the DNS-rebinding scenario forges both, and
 * the gateway must see them), streaming both ways (event streams stay streams).
 */
export interface AuthProxy {
  /** `http://127.0.0.1:<port>`: what the suite calls. */
  url: string;
  /** `127.0.0.1:<port>`: the Host the suite's requests carry. */
  host: string;
  close(): Promise<void>;
}

export async function startAuthProxy(target: string, bearer: string): Promise<AuthProxy> {
  const upstream = new URL(target);
  const forward = (incoming: IncomingMessage, answer: ServerResponse) => {
    const headers = { ...incoming.headers };
    headers.authorization ??= `Bearer ${bearer}`;
    const outgoing = request({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers, setHost: false }, (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(answer);
    });
    outgoing.on('error', (error) => {
      if (!answer.headersSent) answer.writeHead(502, { 'content-type': 'text/plain' });
      answer.end(`auth proxy: the gateway did not answer (${error.message})`);
    });
    // The suite gave up on a stream: so does the gateway's request.
    answer.on('close', () => outgoing.destroy());
    incoming.pipe(outgoing);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${host}`,
    host,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
