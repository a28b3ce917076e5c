import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { testGateway } from '../helpers/gateway.ts';
import { closedPort } from '../helpers/http-server.ts';

const SECRET = 'e2e-exec-secret-0123456789abcdef0123456789';

/** Every coding tool through the HTTP gateway to a real exec-server on loopback. */
describe('coding tools through the gateway and a real exec-server', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-ws-'));
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let gw: Awaited<ReturnType<typeof testGateway>>;
  let downPort: number;

  beforeAll(async () => {
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'app.js'), 'const greeting = "hello";\nconsole.log(greeting);\n');
    writeFileSync(join(root, 'crlf.txt'), 'one\r\ntwo\r\n');
    exec = await startExecServer({ root, secret: SECRET, tenants: ['oa', 'an', 'ge'], port: 0 });
    downPort = await closedPort();
    const environment = { url: exec.url, secret: 'env:ACME_EXEC_SECRET' };
    const policy = { read: 'grant', write: 'grant', execute: 'grant' } as const;
    const openai = validManifest({ tenant: 'oa', profile: 'openai', policy, execution_environment: environment, tools: [{ name: 'shell', executor: { kind: 'builtin' }, output: { max_lines: 4 } }] });
    const anthropic = validManifest({ tenant: 'an', profile: 'anthropic', policy, execution_environment: environment, tools: [{ name: 'grep', description: "The tenant's own grep", input_schema: { type: 'object' }, executor: { kind: 'builtin', name: 'echo' } }] });
    const gemini = validManifest({ tenant: 'ge', profile: 'gemini', policy, execution_environment: environment, tools: [] });
    const down = validManifest({ tenant: 'down', profile: 'openai', policy, execution_environment: { url: `http://127.0.0.1:${downPort}`, secret: 'env:ACME_EXEC_SECRET' }, tools: [] });
    const nosecret = validManifest({ tenant: 'nosecret', profile: 'openai', policy, execution_environment: { url: exec.url, secret: 'env:MISSING_SECRET' }, tools: [] });
    gw = await testGateway([openai, anthropic, gemini, down, nosecret], { oa: { tenant: 'oa' }, an: { tenant: 'an' }, ge: { tenant: 'ge' }, down: { tenant: 'down' }, ns: { tenant: 'nosecret' } }, {
      env: { ACME_EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'oa:ACME_EXEC_SECRET;an:ACME_EXEC_SECRET;ge:ACME_EXEC_SECRET;down:ACME_EXEC_SECRET;nosecret:MISSING_SECRET' },
      egressTransport: nodeEgressTransport(),
    });
  });
  afterAll(async () => {
    await exec?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const call = async (key: string, name: string, args: unknown) => {
    const body = await (await gw.request('/v1/dispatch', { key, json: { thread_id: `t-${name}`, calls: [{ call_id: `c-${Math.random()}`, name, arguments: args }] } })).json();
    return body.results[0] as { status: string; content: string; truncated: boolean };
  };
  const toolNames = async (key: string) => ((await (await gw.request('/v1/tools', { key })).json()).tools as Array<{ name: string }>).map((t) => t.name);

  it('exposes exactly the profile set (a tenant tool replaces the built-in of the same name)', async () => {
    expect(await toolNames('oa')).toEqual(['read_file', 'write_file', 'apply_patch', 'shell', 'grep', 'glob']);
    expect(await toolNames('ge')).toEqual(['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob']);
    expect(await toolNames('an')).toEqual(['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob']);
    const grep = await (await gw.request('/v1/tools/grep', { key: 'an' })).json();
    expect(grep.description).toBe("The tenant's own grep");
  });

  it('read_file, write_file, grep and glob', async () => {
    expect((await call('oa', 'read_file', { file_path: 'src/app.js' })).content).toBe('   1 | const greeting = "hello";\n   2 | console.log(greeting);');
    expect(await call('oa', 'write_file', { file_path: 'docs/notes.md', content: 'ünï\n' })).toMatchObject({ status: 'ok', content: 'Wrote 6 bytes to docs/notes.md' });
    expect(readFileSync(join(root, 'docs', 'notes.md'), 'utf8')).toBe('ünï\n');
    expect((await call('oa', 'grep', { pattern: 'greet', path: 'src' })).content).toBe('src/app.js:1:const greeting = "hello";\nsrc/app.js:2:console.log(greeting);');
    const glob = (await call('oa', 'glob', { pattern: '**/*.md' })).content;
    expect(glob).toBe('docs/notes.md');
  });

  it('apply_patch (openai) and edit_file (anthropic) change files byte-exactly', async () => {
    const patch = '*** Begin Patch\n*** Update File: src/app.js\n@@\n-const greeting = "hello";\n+const greeting = "hello, toolgate";\n*** End Patch';
    expect((await call('oa', 'apply_patch', { patch })).content).toBe('Success. Updated the following files:\nM src/app.js\n');
    expect(readFileSync(join(root, 'src', 'app.js'), 'utf8')).toBe('const greeting = "hello, toolgate";\nconsole.log(greeting);\n');
    expect((await call('an', 'edit_file', { file_path: 'crlf.txt', old_string: 'two', new_string: 'three' })).content).toBe('Replaced 1 occurrence in crlf.txt.');
    expect(readFileSync(join(root, 'crlf.txt'), 'latin1')).toBe('one\r\nthree\r\n');
    expect((await call('oa', 'edit_file', { file_path: 'crlf.txt', old_string: 'a', new_string: 'b' })).status).toBe('unknown_tool');
  });

  it('shell runs in the root, with the manifest overriding its output limits', async () => {
    const result = await call('oa', 'shell', { command: 'node src/app.js && seq 1 10' });
    expect(result.truncated).toBe(true);
    expect(result.content).toContain('[... ');
    expect(result.content.startsWith('Exit code: 0\n')).toBe(true);
    const plain = await call('an', 'shell', { command: 'node src/app.js' });
    expect(plain.content).toMatch(/^Exit code: 0\nDuration: \d+ ms\n--- stdout ---\nhello, toolgate\n--- stderr ---\n\(empty\)$/);
  });

  it('refuses paths outside the root through the whole stack', async () => {
    const result = await call('oa', 'read_file', { file_path: '../../etc/passwd' });
    expect(result).toMatchObject({ status: 'error', content: 'Path ../../etc/passwd is outside the working directory. Use a path relative to the working directory, or an absolute path inside it.' });
  });

  it('attack (issue 22): a FIFO and a hard link to an outside file are refused by every file tool, with what to do', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'toolgate-outside-'));
    try {
      writeFileSync(join(outside, 'secret.txt'), 'outside secret\n');
      linkSync(join(outside, 'secret.txt'), join(root, 'linked.txt'));
      execFileSync('mkfifo', [join(root, 'pipe')]);
      const refusals = [
        ['oa', 'read_file', { file_path: 'pipe' }, 'not a regular file (a FIFO, socket or device)'],
        ['oa', 'grep', { pattern: 'x', path: 'pipe' }, 'not a regular file (a FIFO, socket or device)'],
        ['oa', 'write_file', { file_path: 'pipe', content: 'x' }, 'not a regular file (a FIFO, socket or device)'],
        ['oa', 'read_file', { file_path: 'linked.txt' }, 'has 2 hard links (names)'],
        ['oa', 'grep', { pattern: 'secret', path: 'linked.txt' }, 'has 2 hard links (names)'],
        ['oa', 'write_file', { file_path: 'linked.txt', content: 'pwned' }, 'has 2 hard links (names)'],
        ['an', 'edit_file', { file_path: 'linked.txt', old_string: 'outside', new_string: 'pwned' }, 'has 2 hard links (names)'],
        ['oa', 'apply_patch', { patch: '*** Begin Patch\n*** Update File: linked.txt\n@@\n-outside secret\n+pwned\n*** End Patch' }, 'has 2 hard links (names)'],
      ] as const;
      for (const [key, tool, args, reason] of refusals) {
        const result = await call(key, tool, args);
        expect(result.status, `${tool} ${JSON.stringify(args)}`).toBe('error');
        expect(result.content, `${tool} ${JSON.stringify(args)}`).toContain(reason);
      }
      const searched = await call('oa', 'grep', { pattern: 'secret' });
      expect(searched).toMatchObject({ status: 'ok', content: 'No matches found for pattern "secret" in the working directory.' });
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
    } finally {
      rmSync(join(root, 'linked.txt'), { force: true });
      rmSync(join(root, 'pipe'), { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('an exec-server that is down, or a secret that is not set, is an unavailable result, never a crash', async () => {
    const down = await call('down', 'read_file', { file_path: 'x' });
    expect(down.status).toBe('unavailable');
    expect(down.content).toContain(`127.0.0.1:${downPort}`);
    const nosecret = await call('ns', 'shell', { command: 'echo hi' });
    expect(nosecret.status).toBe('unavailable');
    expect(nosecret.content).toContain('secret MISSING_SECRET is not set');
  });
});
