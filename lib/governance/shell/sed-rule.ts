import { commandRule, type ParsedArguments } from './command-rule.ts';
import { pathsRefusal } from './workspace-path.ts';

/**
 * sed only as a printer: `-n` with a script made of nothing but `p` commands on line-number,
 * `$` or `/regex/` addresses (`sed -n '10,20p' f`, `sed -n '/TODO/p' f`). Every other command
 * is refused, above all `w` (writes a file), `e` (runs a command), `s///w` and `s///e`, and so
 * are `-i` (edits in place) and `-e`/`-f` (scripts this check would not see).
 * A regex address may not contain `/`, `\` or `[`, so it ends where this check says it does: GNU
 * sed skips a `/` inside a bracket expression (`/[/]/p` is one address), and `\/` is a slash.
 */
const ADDRESS = String.raw`(?:\d+|\$|/[^/\\[]*/)`;
const PRINT_COMMAND = `(?:${ADDRESS}(?:,${ADDRESS})?)?p`;
const PRINT_ONLY_SCRIPT = new RegExp(`^${PRINT_COMMAND}(?:;${PRINT_COMMAND})*$`);

const QUIET = ['-n', '--quiet', '--silent'];

function sedOperands({ operands, options }: ParsedArguments): string | undefined {
  if (!QUIET.some((name) => options.has(name))) return 'only -n with print commands is known to be read-only; -n is missing';
  const [script, ...files] = operands;
  if (script === undefined) return 'there is no script';
  if (!PRINT_ONLY_SCRIPT.test(script)) return `script "${script}" is not only print commands (like 10,20p or /regex/p)`;
  return pathsRefusal(files);
}

export const sedRule = commandRule({
  flags: '-n --quiet --silent -E -r --regexp-extended -s --separate -z --null-data --posix -u --unbuffered',
  operands: sedOperands,
});
