import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { leaf, parseCommandLine } from './command-line.ts';
import { commandTree } from './command-tree.ts';
import { useNodeCrypto } from './node-crypto.ts';

/** The version in the package.json this CLI was installed with. */
function installedVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** `toolgate` and every command below it (command-tree.ts), parsed by one parser. */
export function cliProgram(): Command {
  const root = commandTree(new Command('toolgate'))
    .description('toolgate — tool-dispatch gateway for AI agents')
    .version(installedVersion(), '-v, --version', 'the installed version')
    .helpCommand('help [command]', 'this text, or a command\'s own (as `toolgate COMMAND --help`)')
    .addHelpText('after', '\nEvery command answers --help with its options and an example: toolgate keys create --help\n');
  leaf(root.command('version').description('the installed version'), async () => {
    console.log(installedVersion());
    return 0;
  });
  return root;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  useNodeCrypto();
  endQuietlyWhenTheReaderLeaves();
  const program = cliProgram();
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  const parsed = await parseCommandLine(program, argv);
  if ('exitCode' in parsed) return parsed.exitCode;
  try {
    return await parsed.run(parsed.invocation);
  } catch (error) {
    console.error(`toolgate ${parsed.invocation.path.join(' ')}: ${(error as Error).message}`);
    return 1;
  }
}

/** A reader that stops early (`toolgate --help | head -3`) closes the pipe: the output is done, not failed. */
function endQuietlyWhenTheReaderLeaves(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
}
