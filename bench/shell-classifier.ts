import { classifyCommand } from '../lib/governance/shell/classify-command.ts';
import { MAX_CLASSIFIED_COMMAND_CHARS } from '../lib/governance/shell/lexical-guard.ts';
import type { BenchModule, Figures } from './harness.ts';
import { round } from './harness.ts';
import { median } from './stats.ts';

/** Commands a read_only_commands rule sees every day. */
const EVERYDAY = [
  'git status',
  'ls -la src',
  'git log --oneline -20 -- src/app.ts',
  "grep -rn 'TODO' src | sort | uniq -c",
  "find . -name '*.ts' -not -path './node_modules/*'",
  "sed -n '120,180p' lib/dispatch/pipeline.ts",
];

const LIMIT = MAX_CLASSIFIED_COMMAND_CHARS;
const fill = (unit: string, prefix = 'echo ') => (prefix + unit.repeat(LIMIT)).slice(0, LIMIT);

/** Inputs a model could send to make the parser slow, each as long as the classifier accepts. */
const ADVERSARIAL: Record<string, string> = {
  words: fill('a '),
  escapes: fill('\\a'),
  single_quotes: fill("'a'"),
  double_quotes: fill('"a\\"b"'),
  empty_quotes: fill("''"),
  operators: fill('ls && ', ''),
  pipes: fill('cat a | ', '').replace(/ \| ?$/, ''),
  options: fill('-la ', 'ls '),
  unterminated_quote: fill('a', 'echo "'),
  dollar_quotes: fill("$'", 'echo '),
  git_options: fill('--stat ', 'git log '),
  find_expression: fill('-name a -o ', 'find . '),
};

function timeUs(command: string, runs: number): number[] {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    classifyCommand(command);
    samples.push((performance.now() - started) * 1000);
  }
  return samples;
}

export const shellClassifier: BenchModule = {
  name: 'shell-classifier',
  title: 'read_only_commands: classifying a shell command (µs; everyday p50, and the slowest adversarial input at the length limit)',
  async run(): Promise<Figures> {
    const figures: Figures = {};
    for (const command of EVERYDAY) timeUs(command, 200);
    figures.everyday_p50_us = round(median(EVERYDAY.flatMap((command) => timeUs(command, 500))));
    let worst = 0;
    for (const [name, command] of Object.entries(ADVERSARIAL)) {
      const slowest = Math.max(...timeUs(command, 20));
      figures[`${name}_${command.length}_chars_max_us`] = round(slowest);
      worst = Math.max(worst, slowest);
    }
    figures.adversarial_worst_us = round(worst);
    return figures;
  },
};
