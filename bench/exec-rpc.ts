import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionEnvironment } from '../lib/exec/environment.ts';
import { withExecPair } from './exec-fixtures.ts';
import type { BenchModule, Figures } from './harness.ts';
import { round } from './harness.ts';
import { distribution, timeEachAsync } from './stats.ts';

const FILE = 'one-kb.txt';
const FILE_BYTES = 1024;

interface Operation {
  name: string;
  iterations: number;
  warmup: number;
  call(env: ExecutionEnvironment): Promise<unknown>;
}

/** Small calls, so the figures are the RPC's own cost; a process spawn for scale. */
const OPERATIONS: Operation[] = [
  { name: 'stat', iterations: 3000, warmup: 300, call: (env) => expect(env.stat(FILE), (s) => s?.size === FILE_BYTES) },
  { name: 'read_file_1kb', iterations: 3000, warmup: 300, call: (env) => expect(env.readFile(FILE), (b) => b.byteLength === FILE_BYTES) },
  { name: 'exec_true', iterations: 200, warmup: 20, call: (env) => expect(env.execCommand('true'), (r) => r.exit_code === 0) },
];

/** A call that answered but wrongly must not be timed as a success. */
async function expect<T>(pending: Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const value = await pending;
  if (!ok(value)) throw new Error(`unexpected answer: ${JSON.stringify(value)}`);
  return value;
}

async function measure(operation: Operation, local: ExecutionEnvironment, remote: ExecutionEnvironment): Promise<Figures> {
  const l = distribution(await timeEachAsync(operation.iterations, operation.warmup, () => operation.call(local)));
  const r = distribution(await timeEachAsync(operation.iterations, operation.warmup, () => operation.call(remote)));
  const p = operation.name;
  return {
    [`${p}_local_p50_us`]: l.p50,
    [`${p}_local_p99_us`]: l.p99,
    [`${p}_rpc_p50_us`]: r.p50,
    [`${p}_rpc_p99_us`]: r.p99,
    [`${p}_rpc_added_p50_us`]: round(r.p50 - l.p50),
    [`${p}_rpc_to_local_p50_ratio`]: round(r.p50 / l.p50),
  };
}

export const execRpc: BenchModule = {
  name: 'exec-rpc',
  title: 'One small ExecutionEnvironment call: RemoteExecutionEnvironment → exec-server on 127.0.0.1 vs LocalExecutionEnvironment in-process, each call timed (µs)',
  async run(): Promise<Figures> {
    const fill = (root: string) => writeFile(join(root, FILE), 'x'.repeat(FILE_BYTES));
    return withExecPair('toolgate-bench-rpc-', fill, async ({ local, remote }) => {
      const figures: Figures = {};
      for (const operation of OPERATIONS) {
        figures[`${operation.name}_iterations`] = operation.iterations;
        Object.assign(figures, await measure(operation, local, remote));
      }
      return figures;
    });
  },
};
