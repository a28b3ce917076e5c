import { Command } from 'commander';
import { configureRoot, leaf, repeated, type Invocation } from './command-line.ts';
import { EXEC_OPTIONS } from './exec-server-options.ts';

// The whole command tree: every command's words, options, help and example, in one table that
// one parser reads (commander). Each command's module is imported only when that command runs, so
// `toolgate --help` or `toolgate manifest validate` never loads the store, the HTTP server, the
// MCP SDK or the AWS SDK.

/** "Examples:" after a command's help: what to type, as the README's walkthroughs do. */
const examples = (...lines: string[]) => `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;

const GATEWAY_OPTIONS: Array<[string, string]> = [
  ['--url <url>', 'the gateway (default: TOOLGATE_URL)'],
  ['--key <key>', 'an API key with the admin scope; acts on its tenant (default: TOOLGATE_KEY)'],
];

function withGateway(command: Command): Command {
  for (const [flags, description] of GATEWAY_OPTIONS) command.option(flags, description);
  return command;
}

function serve(root: Command): void {
  const command = root
    .command('serve')
    .summary('run the gateway locally, with the demo tenant (npm start)')
    .description('Runs the gateway on 127.0.0.1 with the demo tenant of its manifest file, an exec-server beside it for the coding tools, SQLite under .toolgate/ (or TOOLGATE_STORE), and the demo\'s agent and admin keys. PORT, HOST, TOOLGATE_MANIFEST and TOOLGATE_DATA_DIR set the same as the options.')
    .option('--port <n>', 'the port (default: PORT or 8787; 0 picks a free one)')
    .option('--host <host>', 'the address to listen on (default: HOST or 127.0.0.1)')
    .option('--manifest <file>', 'the tenant\'s manifest (default: TOOLGATE_MANIFEST or examples/demo/manifest.json)')
    .addHelpText('after', examples('npm start', 'npx toolgate serve --port 0', 'TOOLGATE_TENANT_SECRETS=acme:ACME_EXEC_SECRET,ACME_TOOLS_SECRET npx toolgate serve'));
  leaf(command, async (invocation) => (await import('./serve.ts')).serveCommand(invocation));
}

function manifest(root: Command): void {
  const group = root
    .command('manifest')
    .summary('check manifests, and publish, activate, roll back and compare their versions on a gateway')
    .description('Manifests: validate and import-mcp work on a file here; publish, activate, rollback, list and diff talk to a gateway (--url/--key or TOOLGATE_URL/TOOLGATE_KEY, an API key with the admin scope, acting on its tenant).');
  const run = (action: string) => async (invocation: Invocation) => (await import('./manifest.ts')).manifestCommand(action, invocation);

  leaf(
    group
      .command('validate')
      .summary('check a manifest file; exits 1 on problems')
      .description('Checks a manifest as the gateway will and prints every problem with its JSON path; with TOOLGATE_TENANT_SECRETS or TOOLGATE_EGRESS_ALLOW set, also secrets not granted and internal URLs not allowed. Exits 1 on problems.')
      .argument('<file>', 'the manifest (JSON)')
      .addHelpText('after', examples('npx toolgate manifest validate examples/acme/manifest.json')),
    run('validate'),
  );
  leaf(
    group
      .command('import-mcp')
      .summary('pin the tools, resources and prompts of its mcp_imports')
      .description('Connects to each server of the manifest\'s mcp_imports and pins its tools (and resources, resource templates, prompts); prints the manifest, or writes it to --out. "env:NAME" headers resolve from this process\'s environment.')
      .argument('<file>', 'the manifest (JSON)')
      .option('--out <file>', 'write the pinned manifest here (the report goes to stdout then)')
      .addHelpText('after', examples('npx toolgate manifest import-mcp my-tenant.json --out my-tenant.pinned.json')),
    run('import-mcp'),
  );
  leaf(
    withGateway(group.command('publish').summary('publish a version (immutable), pinning mcp_imports first').argument('<file>', 'the manifest (JSON)'))
      .description('Publishes the manifest\'s version to the gateway (versions are immutable: the same content again is a no-op, other content under the same version is refused), after checking it and pinning its mcp_imports.')
      .option('--activate', 'make it the active version too')
      .addHelpText('after', examples('npx toolgate manifest publish examples/acme/manifest.json --activate')),
    run('publish'),
  );
  leaf(
    withGateway(group.command('activate').summary('make a published version the active one').argument('<version>', 'a published version'))
      .description('Makes a published version the active one (atomic; audited in the tenant\'s _manifests thread). Every gateway instance serves it within TOOLGATE_MANIFEST_CACHE_MS.')
      .addHelpText('after', examples('npx toolgate manifest activate 2')),
    run('activate'),
  );
  leaf(
    withGateway(group.command('rollback').summary('return to the version active before'))
      .description('Makes the version that was active before the current one active again.')
      .addHelpText('after', examples('npx toolgate manifest rollback')),
    run('rollback'),
  );
  leaf(
    withGateway(group.command('list').summary('published versions, the active one marked'))
      .description('Lists the tenant\'s published versions (when, by whom, hash); * marks the active one.')
      .addHelpText('after', examples('npx toolgate manifest list')),
    run('list'),
  );
  leaf(
    withGateway(group.command('diff').summary('tools added, removed and changed (old → new values) from A to B').argument('<from>', 'a published version').argument('<to>', 'another published version'))
      .description('Compares two published versions: tools added (+), removed (-) and changed (~, each changed field with its old → new value), and changed settings.')
      .addHelpText('after', examples('npx toolgate manifest diff 1 2')),
    run('diff'),
  );
}

function execServer(root: Command): void {
  const command = root
    .command('exec-server')
    .summary('serve a folder to a tenant\'s coding tools, commands sandboxed (TOOLGATE_EXEC_SECRET)')
    .description(
      'Serves the folder --root to a toolgate gateway\'s built-in coding tools (read_file, shell, ...) over a signed RPC. The secret comes from TOOLGATE_EXEC_SECRET, the same value the gateway uses. ' +
        '--tenant names a tenant (the manifest\'s "tenant") this server works for; repeat it for several, or set TOOLGATE_EXEC_TENANTS=a,b. Requests for any other tenant are refused and nothing runs.\n\n' +
        'Every command runs in a bubblewrap sandbox: the root (read-only for a read-only grant) and the system folders, nothing else of this host, no network, limits per call. Without a working bubblewrap ' +
        '(Linux, package bubblewrap) commands are refused, unless --unsandboxed says to run them as ordinary processes of this user. GET /healthz (unsigned) says which.',
    );
  for (const option of EXEC_OPTIONS) {
    if (option.repeatable) command.option(option.flags, option.description, repeated);
    else command.option(option.flags, option.description);
  }
  command.addHelpText('after', examples('export TOOLGATE_EXEC_SECRET=$(openssl rand -hex 32)', 'npx toolgate exec-server --root ./workspace --tenant acme --port 8788'));
  leaf(command, async (invocation) => (await import('./exec-server.ts')).runExecServer(invocation));
}

function call(root: Command): void {
  const command = root
    .command('call')
    .summary('run one coding tool on a local folder; exits 1 on an error result')
    .description(
      'Runs one built-in coding tool (read_file, write_file, edit_file, apply_patch, shell, grep, glob) against a local folder, through the same validation and truncation as the gateway. ' +
        'Prints the tool\'s output; exits 0 on success and 1 when the result is an error. shell runs in the exec-server\'s bubblewrap sandbox (the folder writable, no network, default limits); ' +
        'where bubblewrap does not work it is refused unless --unsandboxed runs it as an ordinary process.',
    )
    .argument('<tool>', 'the tool\'s name')
    .option('--root <dir>', 'the folder the tool works in (required)')
    .option('--args <json>', 'the arguments, a JSON object')
    .option('--args-file <file>', 'read the arguments from this file instead')
    .option('--unsandboxed', 'run shell commands as ordinary processes where bubblewrap does not work')
    .addHelpText('after', examples('npx toolgate call read_file --root ./workspace --args \'{"file_path": "greet.sh"}\'', 'npx toolgate call shell --root ./workspace --args \'{"command": "ls -la"}\''));
  leaf(command, async (invocation) => (await import('./call.ts')).callCommand(invocation));
}

function audit(root: Command): void {
  const group = root.command('audit').summary('check a thread\'s audit chain').description('The audit trail: every call\'s request, decision and result envelopes, hash-chained per thread.');
  const verify = group
    .command('verify')
    .summary('recompute a thread\'s hash chain; exits 1 if broken, empty or unknown')
    .description('Recomputes the thread\'s hash chain and reports the first broken link. Reads the store (TOOLGATE_STORE, default .toolgate/toolgate.db), or with --url the gateway\'s GET /v1/audit. Exits 1 when the chain is broken, or when the thread has no envelopes (an unknown thread id).')
    .option('--thread <id>', 'the thread (required)')
    .option('--tenant <tenant>', 'the tenant, reading the store (default: demo)')
    .option('--url <url>', 'read through this gateway instead of the store')
    .option('--key <key>', 'with --url: an API key with the audit:read scope (default: TOOLGATE_KEY)')
    .addHelpText('after', examples('npx toolgate audit verify --thread coding-1', 'npx toolgate audit verify --thread _manifests --tenant acme'));
  leaf(verify, async (invocation) => (await import('./audit.ts')).auditVerifyCommand(invocation));
}

function keys(root: Command): void {
  const group = root
    .command('keys')
    .summary('API keys: create (printed once), list, revoke, rotate')
    .description(
      'API keys. Each subcommand acts through a gateway (--url/--key or TOOLGATE_URL/TOOLGATE_KEY: an API key with the admin scope, on its own tenant), ' +
        'or with --tenant T directly on the store of TOOLGATE_STORE (default .toolgate/toolgate.db), e.g. to create a tenant\'s first admin key. ' +
        'toolgate keeps only each key\'s SHA-256. Durations: 90s, 30m, 12h, 90d, or seconds.',
    );
  const target = (command: Command) =>
    withGateway(command)
      .option('--tenant <tenant>', 'work on the store directly, for this tenant (not with --url/--key)')
      .option('--json', 'print the answer as JSON');
  const run = (action: string) => async (invocation: Invocation) => (await import('./keys.ts')).keysCommand(action, invocation);
  leaf(
    target(group.command('create').summary('create a key; printed once (stdout)'))
      .description(
        'Creates a key for a principal with the scopes given, prints it once (stdout) and what it is (stderr). --scopes is required: "none" for a key with no scopes. ' +
          'Scopes the gateway knows: approvals:read, approvals:decide, audit:read, admin, plus any tool scopes. Through a gateway a key gets only scopes the admin key holds; with --tenant (the operator, on the store) any.',
      )
      .option('--principal <name>', 'who the key is for (required)')
      .option('--scopes <list>', 'comma-separated scopes, or "none" (required)')
      .option('--expires-in <duration>', 'expire after this long (default: never)')
      .addHelpText('after', examples('npx toolgate keys create --tenant acme --principal ops --scopes admin,audit:read,orders:read', 'npx toolgate keys create --principal support-bot --scopes orders:read --expires-in 90d')),
    run('create'),
  );
  leaf(
    target(group.command('list').summary('the tenant\'s keys: id, prefix, principal, state, scopes, dates'))
      .description('Lists the tenant\'s keys, a page at a time.')
      .option('--limit <n>', 'keys per page (default 50)')
      .option('--cursor <cursor>', 'the next page, as the previous one said')
      .addHelpText('after', examples('npx toolgate keys list', 'npx toolgate keys list --tenant acme --json')),
    run('list'),
  );
  leaf(
    target(group.command('revoke').summary('refuse a key from now on').argument('<key-id>', 'the key\'s id (key_…, as `keys list` shows it)'))
      .description('Revokes the key: refused at once by the gateway process that revoked it, by other processes within 60 seconds (their key cache).')
      .addHelpText('after', examples('npx toolgate keys revoke key_04f6d2af902fc620')),
    run('revoke'),
  );
  leaf(
    target(group.command('rotate').summary('a new key (printed once) for the same principal and scopes').argument('<key-id>', 'the key\'s id (key_…, as `keys list` shows it)'))
      .description('Makes a new key (printed once) for the same principal and scopes; the old one keeps working for the grace period (default 1d, at most 7d).')
      .option('--grace <duration>', 'how long the old key keeps working (default 1d)')
      .addHelpText('after', examples('npx toolgate keys rotate key_04f6d2af902fc620 --grace 1h')),
    run('rotate'),
  );
}

function connections(root: Command): void {
  const group = root
    .command('connections')
    .summary('users\' connection grants: list (who holds which), revoke (also at the provider)')
    .description('Users\' connection grants (tools that act as the user). Each subcommand acts through a gateway (--url/--key or TOOLGATE_URL/TOOLGATE_KEY); no command shows a token.');
  const run = (action: string) => async (invocation: Invocation) => (await import('./connections.ts')).connectionsCommand(action, invocation);
  leaf(
    withGateway(group.command('list').summary('the caller\'s grants; --all: every principal\'s (admin scope)'))
      .option('--all', 'every principal\'s grants of the tenant (the key needs the admin scope)')
      .option('--json', 'print the answer as JSON')
      .addHelpText('after', examples('npx toolgate connections list --all')),
    run('list'),
  );
  leaf(
    withGateway(group.command('revoke').summary('revoke a grant, also at the provider').argument('<connection>', 'the connection\'s name in the manifest'))
      .option('--principal <name>', 'whose grant (default: the key\'s own principal; another\'s needs the admin scope)')
      .option('--json', 'print the answer as JSON')
      .addHelpText('after', examples('npx toolgate connections revoke github --principal alice')),
    run('revoke'),
  );
}

/** Adds every command below `toolgate` to `root`, configured first (command-line.ts configureRoot). */
export function commandTree(root = new Command('toolgate')): Command {
  configureRoot(root);
  for (const add of [serve, manifest, execServer, call, audit, keys, connections]) add(root);
  return root;
}
