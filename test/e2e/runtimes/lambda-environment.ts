import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../helpers/processes.ts';
import { fromLambdaResult, invocationFailure, toFunctionUrlEvent, toHttpApiEvent, type LambdaHttpEvent, type LambdaHttpResult } from './lambda-events.ts';
import type { RuntimeTarget } from './fixtures.ts';

const CHILD = join(import.meta.dirname, 'lambda-child.ts');

type ChildMessage =
  | { type: 'ready'; initMs: number }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; result: LambdaHttpResult }
  | { type: 'error'; id: number; errorType: string; errorMessage: string };

/** The invocation failed (Lambda's errorType/errorMessage), as opposed to the environment dying. */
export class LambdaInvocationError extends Error {
  readonly errorType: string;
  constructor(errorType: string, message: string) {
    super(`${errorType}: ${message}`);
    this.name = 'LambdaInvocationError';
    this.errorType = errorType;
  }
}

export interface LambdaEnvironment {
  /** How long importing the handler module took (the cold start's INIT phase). */
  initMs: number;
  invoke(event: LambdaHttpEvent): Promise<LambdaHttpResult>;
  /** The function's log stream so far (stdout and stderr). */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * A fresh Node process that imports `module` (functions/lambda.ts, or its bundle) with only the
 * function's configured variables, as a Lambda cold start does; rejects with the INIT error if
 * the import fails.
 */
export async function startLambdaEnvironment(module: string, env: Record<string, string>): Promise<LambdaEnvironment> {
  // A Lambda environment has no developer variables (no AWS_PROFILE, no proxies): only its own.
  const childEnv = { PATH: process.env.PATH ?? '', LANG: 'en_US.UTF-8', TZ: ':UTC', ...env };
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD, module, 'toolgate-test'], { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let logs = '';
  child.stdout?.on('data', (d: Buffer) => { logs += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { logs += d.toString(); });
  const initMs = await initialised(child, () => logs);
  return { initMs, invoke: invoker(child, () => logs), logs: () => logs, stop: () => stop(child) };
}

function initialised(child: ChildProcess, logs: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the Lambda environment exited (${code}) during INIT; log:\n${logs()}`));
    child.once('exit', onExit);
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') {
        child.off('exit', onExit);
        resolve(message.initMs);
      } else if (message.type === 'init-error') {
        child.off('exit', onExit);
        reject(new LambdaInvocationError('Runtime.InitError', message.message));
      }
    });
  });
}

function invoker(child: ChildProcess, logs: () => string): (event: LambdaHttpEvent) => Promise<LambdaHttpResult> {
  let next = 0;
  const pending = new Map<number, { resolve: (result: LambdaHttpResult) => void; reject: (error: Error) => void }>();
  child.on('message', (message: ChildMessage) => {
    if (message.type !== 'result' && message.type !== 'error') return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.type === 'result') waiter?.resolve(message.result);
    else waiter?.reject(new LambdaInvocationError(message.errorType, message.errorMessage));
  });
  child.once('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`the Lambda environment exited (${code}) during an invocation; log:\n${logs()}`));
    pending.clear();
  });
  return (event) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject });
    child.send({ type: 'invoke', id, event });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
}

/** A runtime target whose requests reach the function the way `source` delivers them. */
export function lambdaTarget(environment: LambdaEnvironment, source: 'http-api' | 'function-url', stopAlso: () => Promise<void> = async () => {}): RuntimeTarget {
  const toEvent = source === 'http-api' ? toHttpApiEvent : toFunctionUrlEvent;
  return {
    async fetch(request) {
      const event = await toEvent(request);
      try {
        return fromLambdaResult(await environment.invoke(event));
      } catch (error) {
        if (!(error instanceof LambdaInvocationError)) throw error;
        return invocationFailure(source);
      }
    },
    async stop() {
      await environment.stop();
      await stopAlso();
    },
  };
}
