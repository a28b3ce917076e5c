import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ToolRouter } from '../dispatch/router.ts';
import { LocalExecutionEnvironment } from '../exec/local.ts';
import { RefusedCommands } from '../exec/command-sandbox.ts';
import { probeCommandSandbox } from '../exec/local-sandbox-probe.ts';
import { policyGovernor } from '../governance/policy.ts';
import { editFileTool } from '../tools/coding/edit-file.ts';
import { SHELL_MAX_TIMEOUT_MS } from '../tools/coding/shell.ts';
import { codingToolsFor } from '../tools/profiles.ts';

const USAGE = `Usage: toolgate call TOOL --root DIR (--args JSON | --args-file FILE) [--unsandboxed]

Runs one built-in coding tool (read_file, write_file, edit_file, apply_patch, shell, grep, glob)
against a local environment rooted at DIR, through the same validation and truncation as the
gateway. Prints the tool's output; exits 0 on success and 1 when the result is an error.
shell runs in the exec-server's bubblewrap sandbox (DIR writable, no network, default limits);
where bubblewrap does not work it is refused unless --unsandboxed runs it as an ordinary process.`;

/** `toolgate call`: debug a tool without a gateway. */
export async function callCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { root: { type: 'string' }, args: { type: 'string' }, 'args-file': { type: 'string' }, unsandboxed: { type: 'boolean' } },
  });
  const [tool] = positionals;
  if (!tool || !values.root || (values.args === undefined) === (values['args-file'] === undefined)) {
    console.error(USAGE);
    return 2;
  }
  const rawArguments = values.args ?? readFileSync(values['args-file']!, 'utf8');
  // The developer's own folder, but a model may have written the command being replayed: sandboxed like the exec-server.
  // Only shell starts processes; probing bubblewrap costs about a second, so other tools skip it.
  const sandbox = tool === 'shell' ? await probeCommandSandbox({ unsandboxed: values.unsandboxed === true }) : new RefusedCommands(`${tool} runs no command`);
  const environment = new LocalExecutionEnvironment(resolve(values.root), { sandbox });
  let fullOutput = '';
  // Local debugging of your own tree: every tool runs, as if the policy granted it, and a
  // command may run as long as its timeout_ms asks: the developer at the terminal is the human.
  const router = new ToolRouter(undefined, 5000, {
    governor: policyGovernor({ write: 'grant', execute: 'grant', rules: [{ tool: 'shell', action: 'grant', max_timeout_ms: SHELL_MAX_TIMEOUT_MS }] }),
    events: (event) => {
      if (event.type === 'tool_call.end') fullOutput = event.output;
    },
  });
  for (const executor of [...codingToolsFor('openai', environment), editFileTool(environment)]) router.register(executor);
  const result = await router.execute({ call_id: 'cli', name: tool, arguments: rawArguments }).finally(() => sandbox.close());
  const text = fullOutput.endsWith('\n') || fullOutput === '' ? fullOutput : `${fullOutput}\n`;
  (result.is_error ? process.stderr : process.stdout).write(text);
  return result.is_error ? 1 : 0;
}
