import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { useNodeCrypto } from './node-crypto.ts';

const USAGE = `toolgate — tool-dispatch gateway for AI agents

Usage:
  toolgate serve [--port N] [--host H] [--manifest FILE]   run the gateway locally (demo tenant)
  toolgate manifest validate FILE                           check a manifest; exits 1 on problems
  toolgate manifest import-mcp FILE [--out OUT]             pin the tools, resources and prompts of its mcp_imports
  toolgate manifest publish|activate|rollback|list|diff     the manifest lifecycle on a gateway (--url, --key)
  toolgate exec-server --root DIR --tenant T [--port 8788]  serve DIR to a tenant's coding tools, commands sandboxed (TOOLGATE_EXEC_SECRET)
  toolgate call TOOL --root DIR --args JSON [--unsandboxed] run one coding tool locally; exits 1 on an error result
  toolgate audit verify --thread ID [--tenant T | --url U]  recompute a thread's audit chain; exits 1 if broken
  toolgate keys create|list|revoke|rotate                   API keys: create (printed once, --expires-in), list, revoke, rotate (--url/--key, or --tenant on the store)
  toolgate connections list|revoke                          users' connection grants (who holds which; revoke, also at the provider) (--url/--key)
  toolgate --version                                        the installed version
  toolgate help                                             this text
`;

type Command = (args: string[]) => Promise<number>;

// Each command's module is imported only when that command runs, so `toolgate --help` or
// `toolgate manifest validate` never loads the store, the HTTP server, the MCP SDK or the AWS SDK.
const commands: Record<string, Command> = {
  async serve(args) {
    const { values } = parseArgs({ args, options: { port: { type: 'string' }, host: { type: 'string' }, manifest: { type: 'string' } } });
    const { startLocalGateway } = await import('./serve.ts');
    const gateway = await startLocalGateway({ port: values.port ? Number(values.port) : undefined, host: values.host, manifestPath: values.manifest });
    const stop = () => void gateway.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return new Promise<number>(() => {});
  },
  manifest: async (args) => (await import('./manifest.ts')).manifestCommand(args),
  'exec-server': async (args) => (await import('./exec-server.ts')).execServerCommand(args),
  call: async (args) => (await import('./call.ts')).callCommand(args),
  audit: async (args) => (await import('./audit.ts')).auditCommand(args),
  keys: async (args) => (await import('./keys.ts')).keysCommand(args),
  connections: async (args) => (await import('./connections.ts')).connectionsCommand(args),
  async version() {
    console.log(await installedVersion());
    return 0;
  },
  async help() {
    console.log(USAGE);
    return 0;
  },
};

/** The version in the package.json this CLI was installed with. */
async function installedVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  useNodeCrypto();
  const [name = 'help', ...rest] = argv;
  const command = commands[name === '--help' || name === '-h' ? 'help' : name === '--version' || name === '-v' ? 'version' : name];
  if (!command) {
    console.error(`unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (error) {
    console.error(`toolgate ${name}: ${(error as Error).message}`);
    return 1;
  }
}
