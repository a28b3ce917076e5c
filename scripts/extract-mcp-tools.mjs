// Refreshes bench/fixtures/mcp-tools (see its README): run in a scratch directory with the server packages installed (--ignore-scripts); copy tools/*.json over the fixtures.
// tools/list from each MCP server package over stdio, offline, with dummy credentials; writes tools/<name>.json
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
mkdirSync('tools', { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'mcp-fs-'));
const dummy = { GITHUB_PERSONAL_ACCESS_TOKEN: 'x', GITLAB_PERSONAL_ACCESS_TOKEN: 'x', SLACK_BOT_TOKEN: 'xoxb-x', SLACK_TEAM_ID: 'T0', GOOGLE_MAPS_API_KEY: 'x', BRAVE_API_KEY: 'x', NOTION_TOKEN: 'x', OPENAPI_MCP_HEADERS: '{"Authorization":"Bearer x","Notion-Version":"2022-06-28"}', SUPABASE_ACCESS_TOKEN: 'x', PRIVATE_APP_ACCESS_TOKEN: 'x', HEROKU_API_KEY: 'x', FIRECRAWL_API_KEY: 'fc-x', SENTRY_ACCESS_TOKEN: 'x', PUPPETEER_SKIP_DOWNLOAD: '1', HOME: dir };
const servers = [
  ['everything', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js', ['stdio']],
  ['filesystem', 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', [dir]],
  ['memory', 'node_modules/@modelcontextprotocol/server-memory/dist/index.js', []],
  ['sequential-thinking', 'node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js', []],
  ['github', 'node_modules/@modelcontextprotocol/server-github/dist/index.js', []],
  ['gitlab', 'node_modules/@modelcontextprotocol/server-gitlab/dist/index.js', []],
  ['slack', 'node_modules/@modelcontextprotocol/server-slack/dist/index.js', []],
  ['google-maps', 'node_modules/@modelcontextprotocol/server-google-maps/dist/index.js', []],
  ['brave-search', 'node_modules/@modelcontextprotocol/server-brave-search/dist/index.js', []],
  ['postgres', 'node_modules/@modelcontextprotocol/server-postgres/dist/index.js', ['postgresql://127.0.0.1:1/none']],
  ['redis', 'node_modules/@modelcontextprotocol/server-redis/dist/index.js', ['redis://127.0.0.1:1']],
  ['puppeteer', 'node_modules/@modelcontextprotocol/server-puppeteer/dist/index.js', []],
  ['gdrive', 'node_modules/@modelcontextprotocol/server-gdrive/dist/index.js', []],
  ['notion', 'node_modules/@notionhq/notion-mcp-server/bin/cli.mjs', []],
  ['playwright', 'node_modules/@playwright/mcp/cli.js', ['--headless', '--isolated']],
  ['supabase', 'node_modules/@supabase/mcp-server-supabase/dist/cli.js', ['--access-token', 'x']],
  ['kubernetes', 'node_modules/mcp-server-kubernetes/dist/index.js', []],
  ['sentry', 'node_modules/@sentry/mcp-server/dist/index.js', ['--access-token=x']],
  ['hubspot', 'node_modules/@hubspot/mcp-server/dist/index.js', []],
  ['heroku', 'node_modules/@heroku/mcp-server/bin/heroku-mcp-server.mjs', []],
  ['firecrawl', 'node_modules/firecrawl-mcp/dist/index.js', []],
  ['context7', 'node_modules/@upstash/context7-mcp/dist/index.js', []],
];
const only = process.argv[2];
for (const [name, file, args] of servers) {
  if (only && name !== only) continue;
  const transport = new StdioClientTransport({ command: process.execPath, args: [file, ...args], env: { ...process.env, ...dummy }, stderr: 'ignore' });
  const client = new Client({ name: 'extract', version: '1' });
  const t = Date.now();
  try {
    await Promise.race([client.connect(transport), new Promise((_, no) => setTimeout(() => no(new Error('connect timeout')), 20000))]);
    const tools = []; let cursor;
    do { const page = await client.listTools(cursor ? { cursor } : {}, { timeout: 20000 }); tools.push(...page.tools); cursor = page.nextCursor; } while (cursor);
    writeFileSync(`tools/${name}.json`, JSON.stringify(tools, null, 1));
    console.log(`${name}: ${tools.length} tools (${Date.now() - t} ms)`);
  } catch (e) { console.log(`${name}: FAILED ${e.message.slice(0, 150)}`); }
  await client.close().catch(() => {});
}
process.exit(0);
