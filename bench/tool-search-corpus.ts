/**
 * The tool search bench's catalog and labelled queries. The catalog is real MCP servers' tool
 * definitions (bench/fixtures/mcp-tools: 221 tools of 17 servers, from their own tools/list;
 * see its README) repeated once per vendor, `<vendor>_<server>_<tool>`, tagged with the vendor
 * and server, up to the size asked (10,000 = the 221 tools × 45 vendors, the last one partial):
 * what a tenant that imports the same servers for many accounts holds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ToolDefinition } from '../lib/registry/definition.ts';
import type { JsonSchema } from '../lib/registry/json.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url);

export const VENDORS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'wonka', 'tyrell', 'cyberdyne', 'soylent', 'vandelay', 'kramerica', 'dunder', 'oscorp', 'aperture', 'blackmesa', 'gringotts', 'monarch', 'nakatomi', 'oceanic', 'pied', 'prestige', 'rekall', 'sirius', 'spacely', 'sterling', 'strickland', 'tricell', 'veidt', 'virtucon', 'weyland', 'yoyodyne', 'zorg', 'abstergo', 'bluth', 'cogswell', 'duff', 'ecorp', 'fringe', 'genco', 'hanso', 'ingen', 'jupiter', 'kwik'];

export interface RealTool {
  server: string;
  name: string;
  description?: string;
  inputSchema?: JsonSchema;
}

export function realTools(): RealTool[] {
  const dir = new URL('mcp-tools/', FIXTURES);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => (JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as RealTool[]).map((tool) => ({ ...tool, server: file.replace(/\.json$/, '') })));
}

/** A catalog tool's name: toolgate's name shape (letters, digits, _ and -, at most 64). */
export const catalogName = (vendor: string | undefined, server: string, tool: string) => [vendor, server, tool].filter(Boolean).join('_').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

function definition(tool: RealTool, vendor: string | undefined): ToolDefinition {
  return {
    name: catalogName(vendor, tool.server, tool.name),
    description: tool.description ?? '',
    input_schema: tool.inputSchema ?? { type: 'object' },
    tier: 'read',
    scopes: [],
    tags: vendor ? [vendor, tool.server] : [tool.server],
  };
}

/** `count` tools: every real tool once per vendor, vendor by vendor. */
export function catalogDefinitions(count: number): ToolDefinition[] {
  const tools = realTools();
  const definitions: ToolDefinition[] = [];
  for (let v = 0; definitions.length < count; v++) for (const tool of tools.slice(0, count - definitions.length)) definitions.push(definition(tool, VENDORS[v]));
  return definitions;
}

/** The real tools alone, once each (no vendor): the catalog a tenant importing these servers once has. */
export const realDefinitions = () => realTools().map((tool) => definition(tool, undefined));

export interface LabelledQuery {
  query: string;
  server: string;
  tool: string;
}

/** bench/fixtures/tool-search-queries.txt: `server/tool | query` per line. */
export function labelledQueries(): LabelledQuery[] {
  const text = readFileSync(new URL('tool-search-queries.txt', FIXTURES), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const [target, query] = line.split(' | ');
      const [server, tool] = target.split('/');
      return { query: query.trim(), server, tool };
    });
}

/**
 * A pattern of one real tool (firecrawl's domain filters) that can backtrack catastrophically:
 * toolgate refuses it at publish (lib/patterns), as it would from that upstream, so the catalog's
 * manifest leaves it out of the schema, as a tenant would have to.
 */
const REFUSED_PATTERN = '^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$';

function withoutRefusedPatterns(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRefusedPatterns);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key, v]) => !(key === 'pattern' && v === REFUSED_PATTERN)).map(([key, v]) => [key, withoutRefusedPatterns(v)]));
}

/**
 * The catalog as a tenant's manifest (`count` tools, each an echo standing in for its upstream,
 * with the real description, input schema and tags): what publishing a large catalog sends.
 */
export function catalogManifest(count: number, identity: { tenant: string; version: string }): Record<string, unknown> {
  const tools = catalogDefinitions(count).map((d) => ({ name: d.name, description: d.description, input_schema: withoutRefusedPatterns(d.input_schema), tier: d.tier, tags: d.tags, executor: { kind: 'builtin', name: 'echo' } }));
  return { format: 'toolgate.manifest/v1', ...identity, profile: 'openai', policy: { read: 'grant' }, tool_search: {}, tools };
}
