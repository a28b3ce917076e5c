import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites that start servers (redis-server, workerd, exec-server) each pick free ports.
    pool: 'forks',
    // Most suites wait on child processes and sockets rather than compute, so one more fork than
    // there are cores keeps the CPUs busy (vitest's default, cores - 1, is a single fork on 2 cores).
    maxWorkers: availableParallelism() + 1,
  },
});
