import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/processes.ts';

describe('toolgate manifest validate', () => {
  it('passes the demo manifest', async () => {
    const { code, stdout } = await runNode(['bin/toolgate.js', 'manifest', 'validate', 'examples/demo/manifest.json']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/examples\/demo\/manifest\.json: ok \(tenant "demo", version \d+, \d+ tools\)/);
  });

  it('prints every problem with its path and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-manifest-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ format: 'toolgate.manifest/v1', tenant: 'acme', version: '1', profile: 'openai', tools: [{ name: 'a', executor: { kind: 'grpc' } }, { name: 'a', executor: { kind: 'builtin', name: 'echo' } }] }));
    const { code, stderr } = await runNode(['bin/toolgate.js', 'manifest', 'validate', file]);
    expect(code).toBe(1);
    expect(stderr).toBe(`${file}: 2 problems\n  $.tools[0].executor.kind: unknown executor kind "grpc" (known: builtin, http, mcp, client)\n  $.tools[1].name: duplicate tool name "a" (first defined at $.tools[0])\n`);
  });

  it('reports an unreadable file', async () => {
    const { code, stderr } = await runNode(['bin/toolgate.js', 'manifest', 'validate', '/nonexistent/m.json']);
    expect(code).toBe(1);
    expect(stderr).toContain('$: cannot read /nonexistent/m.json: ENOENT');
  });
});
