import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../lib/', import.meta.url);
const filesIn = (dir: string) => readdirSync(new URL(dir, root), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts')).map((name) => `${dir}${name}`);
const importsOf = (file: string) => [...readFileSync(new URL(file, root), 'utf8').matchAll(/from '([^']+)'/g)].map((match) => match[1]);

describe('what the MCP server code depends on', () => {
  it('no MCP SDK and no zod in lib/mcp, lib/mcp-wire or lib/http (the SDKs are test oracles only)', () => {
    for (const file of [...filesIn('mcp/'), ...filesIn('mcp-wire/'), ...filesIn('http/')]) {
      expect(importsOf(file).filter((name) => name.startsWith('@modelcontextprotocol/') || name === 'zod' || name.startsWith('zod/')), file).toEqual([]);
    }
  });

  it('lib/mcp-wire is pure: it imports only itself (no I/O, no server or client), so both sides can use it', () => {
    for (const file of filesIn('mcp-wire/')) {
      expect(importsOf(file).filter((name) => !/^\.\/[\w-]+\.ts$/.test(name)), file).toEqual([]);
      expect(readFileSync(new URL(file, root), 'utf8'), file).not.toMatch(/\bfetch\(|process\.|Buffer|Date\.now|Math\.random/);
    }
  });
});
