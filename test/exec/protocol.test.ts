import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../../lib/crypto/base64.ts';
import { parseRpcRequest, RPC_METHODS, RpcRequestError } from '../../lib/exec/rpc-protocol.ts';
import { MemoryEnvironment } from '../helpers/memory-environment.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('base64 over Uint8Array', () => {
  it.each([0, 1, 2, 3, 4, 5, 24_575, 24_576, 24_577, 100_000])('round-trips %i bytes and agrees with Buffer', (length) => {
    const data = new Uint8Array(length).map((_, i) => (i * 31 + 7) % 256);
    const encoded = encodeBase64(data);
    expect(encoded).toBe(Buffer.from(data).toString('base64'));
    expect(decodeBase64(encoded)).toEqual(data);
  });

  it.each(['abc', 'ab=c', 'a*bc', 'YQ==YQ==', 'YQ'])('refuses %j', (text) => {
    expect(() => decodeBase64(text)).toThrow(SyntaxError);
  });
});

describe('parseRpcRequest', () => {
  it('knows exactly the port methods', () => {
    expect([...RPC_METHODS].sort()).toEqual(
      ['deleteFile', 'execCommand', 'fileExists', 'glob', 'grep', 'listDirectory', 'moveFile', 'platform', 'readFile', 'stat', 'workingDirectory', 'writeFile'].sort(),
    );
  });

  it.each([
    [null, 'JSON object'],
    [{ method: 'toString', params: {} }, 'unknown method'],
    [{ method: 'readFile', params: [] }, 'must be a JSON object'],
    [{ method: 'execCommand', params: { command: 'ls', options: { env: { A: 1 } } } }, 'options.env must be an object of string values'],
    [{ method: 'grep', params: { pattern: 'x', path: '.', options: { case_insensitive: 'yes' } } }, 'case_insensitive must be true or false'],
    [{ method: 'listDirectory', params: { path: '.', depth: Number.NaN } }, 'depth must be a number'],
    [{ method: 'execCommand', params: { command: 'ls', options: { read_only: 'yes' } } }, 'read_only must be true or false'],
    [{ method: 'execCommand', params: { command: 'ls', options: { network: 1 } } }, 'network must be true or false'],
  ])('refuses %j', (body, message) => {
    expect(() => parseRpcRequest(body)).toThrow(RpcRequestError);
    expect(() => parseRpcRequest(body)).toThrow(message);
  });

  it('passes execCommand\'s read_only and network on to the environment', async () => {
    const environment = new MemoryEnvironment();
    await parseRpcRequest({ method: 'execCommand', params: { command: 'git status', options: { read_only: true, network: false, timeout_ms: 5 } } }).call(environment);
    await parseRpcRequest({ method: 'execCommand', params: { command: 'curl x', options: { network: true } } }).call(environment);
    expect(environment.commands.map((c) => c.options)).toEqual([{ read_only: true, network: false, timeout_ms: 5 }, { network: true }]);
  });

  it('accepts methods without params', () => {
    expect(parseRpcRequest({ method: 'platform' }).method).toBe('platform');
  });
});

describe('the client side stays Web Standard (it runs on Workers)', () => {
  it('remote.ts and everything it imports use no node: modules, Buffer or process', () => {
    const seen = new Set<string>();
    const pending = [join(repoRoot, 'lib/exec/client/remote.ts')];
    while (pending.length > 0) {
      const file = pending.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, file).not.toMatch(/from ['"]node:|import\(['"]node:|\bBuffer\b|\bprocess\./);
      for (const [, specifier] of code.matchAll(/from ['"](\.[^'"]+)['"]/g)) pending.push(resolve(dirname(file), specifier));
    }
    expect([...seen].map((file) => file.slice(repoRoot.length)).sort()).toContain('lib/exec/rpc-protocol.ts');
  });
});
