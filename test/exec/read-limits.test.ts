import { randomBytes } from 'node:crypto';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webBase64 } from '../../lib/crypto/base64.ts';
import { MAX_READ_FILE_BYTES } from '../../lib/exec/limits.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { nodeBase64 } from '../../lib/exec/server/node-base64.ts';
import { startExecServer, type ExecServer } from '../../lib/exec/server/exec-server.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { execError, makeSandbox, unsandboxed, type Sandbox } from './helpers.ts';

const SECRET = 'read-limits-secret-0123456789abcdef012345';
const MIB = 1024 * 1024;

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

describe('readFile has a size limit', () => {
  it('reads a file of exactly the limit, and refuses one byte more unread, saying what to do instead', async () => {
    const environment = new LocalExecutionEnvironment(sandbox.root, { maxReadBytes: 1000 });
    await writeFile(join(sandbox.root, 'fits.txt'), 'x'.repeat(1000));
    await writeFile(join(sandbox.root, 'over.txt'), 'x'.repeat(1001));
    expect((await environment.readFile('fits.txt')).byteLength).toBe(1000);
    const error = await execError(environment.readFile('over.txt'));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(
      '"over.txt" is 1001 bytes, more than the 1000 bytes readFile returns, so nothing was read: search it with grep, ' +
        "or read part of it with a shell command (head -n 200, tail -n 200, sed -n '1000,1200p', head -c 100000)",
    );
  });

  it('is 32 MiB by default: room for apply_patch on a 10 MB file', () => {
    expect(MAX_READ_FILE_BYTES).toBe(32 * MIB);
  });
});

describe('attack: reading a huge file (a git pack found by glob) through the read tier', () => {
  let server: ExecServer;
  beforeEach(async () => {
    server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0, sandbox: unsandboxed() });
  });
  afterEach(() => server.close());

  it('is refused with the size and what to do instead, nothing read', async () => {
    // Sparse: 300 MB on paper, nothing on disk; reading it would still cost the server 300 MB.
    await writeFile(join(sandbox.root, 'pack-1.pack'), '');
    await truncate(join(sandbox.root, 'pack-1.pack'), 300 * 1000 * 1000);
    const manifest = validManifest({ tenant: 'acme', profile: 'openai', policy: { read: 'grant' }, execution_environment: { url: server.url, secret: 'env:ACME_EXEC_SECRET' }, tools: [] });
    const gw = await testGateway([manifest], { k: { tenant: 'acme' } }, { env: { ACME_EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'acme:ACME_EXEC_SECRET' } });
    const calls = [0, 1, 2, 3].map((i) => ({ call_id: `r${i}`, name: 'read_file', arguments: { file_path: 'pack-1.pack' } }));
    // Read, the four would add 1.1 GiB to this process (the server runs in it); refused unread, next to nothing.
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
    const response = await gw.request('/v1/dispatch', { key: 'k', json: { thread_id: 'huge', parallel: true, calls } });
    const { results } = (await response.json()) as { results: Array<{ status: string; content: string }> };
    clearInterval(sampler);
    expect((peak - before) / MIB).toBeLessThan(150);
    for (const result of results) {
      expect(result.status).toBe('error');
      expect(result.content).toContain('"pack-1.pack" is 286.1 MiB (300000000 bytes), more than the 32.0 MiB (33554432 bytes) readFile returns, so nothing was read');
      expect(result.content).toContain('search it with grep, or read part of it with a shell command');
    }
  });
});

describe('the limit leaves room for apply_patch on a 10 MB file', () => {
  it('through the gateway and a real exec-server: the file is read, patched and written back whole', async () => {
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0, sandbox: unsandboxed() });
    try {
      // As bench/apply-patch.ts: 200,000 unique lines of ~51 bytes.
      const line = (i: number) => `line ${String(i).padStart(6, '0')}: const value = compute(${i % 97}, "payload");`;
      const lines = Array.from({ length: 200_000 }, (_, i) => line(i));
      const original = `${lines.join('\n')}\n`;
      expect(original.length).toBeGreaterThan(10_000_000);
      await writeFile(join(sandbox.root, 'big.txt'), original);
      const patch = ['*** Begin Patch', '*** Update File: big.txt', '@@', ` ${line(149_998)}`, ` ${line(149_999)}`, `-${line(150_000)}`, '+patched', ` ${line(150_001)}`, '*** End Patch'].join('\n');
      const manifest = validManifest({ tenant: 'acme', profile: 'openai', policy: { read: 'grant', write: 'grant' }, execution_environment: { url: server.url, secret: 'env:ACME_EXEC_SECRET' }, tools: [] });
      const gw = await testGateway([manifest], { k: { tenant: 'acme' } }, { env: { ACME_EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'acme:ACME_EXEC_SECRET' } });
      const response = await gw.request('/v1/dispatch', { key: 'k', json: { thread_id: 'patch', calls: [{ call_id: 'p', name: 'apply_patch', arguments: { patch } }] } });
      const { results } = (await response.json()) as { results: Array<{ status: string; content: string }> };
      expect(results[0]).toMatchObject({ status: 'ok', content: 'Success. Updated the following files:\nM big.txt\n' });
      lines[150_000] = 'patched';
      expect(await readFile(join(sandbox.root, 'big.txt'), 'utf8')).toBe(`${lines.join('\n')}\n`);
    } finally {
      await server.close();
    }
  });
});

describe("the exec-server's native base64 agrees with the Web one", () => {
  it('encodes and decodes every length the same way', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 1000, 3 * 8192 + 1]) {
      const bytes = new Uint8Array(randomBytes(length));
      const text = webBase64.encode(bytes);
      expect(nodeBase64.encode(bytes)).toBe(text);
      expect(nodeBase64.decode(text)).toEqual(bytes);
      expect(nodeBase64.encode(bytes.subarray(1))).toBe(webBase64.encode(bytes.subarray(1)));
    }
  });

  it('refuses what is not standard base64 instead of skipping it', () => {
    for (const text of ['***', 'YQ', 'YQ==YQ==', 'Y Q==', 'YQ-_']) {
      expect(() => nodeBase64.decode(text), text).toThrow(/not standard base64/);
      expect(() => webBase64.decode(text), text).toThrow(/not standard base64/);
    }
  });
});
