import { Agent, request } from 'node:http';

export type RawOutcome = { status: number; body: string } | { error: string };

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/**
 * An HTTP/1.1 request with exactly the given method, path, headers (Host included) and bytes,
 * which fetch does not allow. A request Node refuses to send (an invalid header or path) is
 * reported as `{ error }` without reaching the server.
 */
export function rawRequest(port: number, req: RawRequest, options: { agent?: Agent; timeoutMs?: number } = {}): Promise<RawOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: RawOutcome) => {
      if (!settled) resolve(outcome);
      settled = true;
    };
    try {
      const client = request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers: { host: `127.0.0.1:${port}`, ...req.headers }, agent: options.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => done({ error: `response: ${error.message}` }));
      });
      client.setTimeout(options.timeoutMs ?? 15_000, () => {
        client.destroy(new Error('timed out'));
      });
      client.on('error', (error) => done({ error: error.message }));
      client.end(req.body);
    } catch (error) {
      done({ error: `not sent: ${(error as Error).message}` });
    }
  });
}
