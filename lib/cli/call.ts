import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ToolRouter } from '../dispatch/router.ts';
import { LocalExecutionEnvironment } from '../exec/local/local-environment.ts';
import { RefusedCommands } from '../exec/sandbox/command-sandbox.ts';
import { probeCommandSandbox } from '../exec/sandbox/probe.ts';
import { policyGovernor } from '../governance/policy.ts';
import { editFileTool } from '../tools/coding/edit-file.ts';
import { SHELL_MAX_TIMEOUT_MS } from '../tools/coding/shell.ts';
import { codingToolsFor } from '../tools/profiles.ts';
import { flagOf, textOf, type Invocation } from './command-line.ts';

/** `toolgate call`: debug a tool without a gateway. */
export async function callCommand(invocation: Invocation): Promise<number> {
  const [tool] = invocation.operands;
  const root = textOf(invocation, 'root');
  const inline = textOf(invocation, 'args');
  const file = textOf(invocation, 'args-file');
  if (!root || (inline === undefined) === (file === undefined)) {
    console.error('toolgate call: give --root DIR and the arguments, either --args JSON or --args-file FILE; see toolgate call --help');
    return 2;
  }
  const rawArguments = inline ?? readFileSync(file!, 'utf8');
  // The developer's own folder, but a model may have written the command being replayed: sandboxed like the exec-server.
  // Only shell starts processes; probing bubblewrap costs about a second, so other tools skip it.
  const sandbox = tool === 'shell' ? await probeCommandSandbox({ unsandboxed: flagOf(invocation, 'unsandboxed') }) : new RefusedCommands(`${tool} runs no command`);
  const environment = new LocalExecutionEnvironment(resolve(root), { sandbox });
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
