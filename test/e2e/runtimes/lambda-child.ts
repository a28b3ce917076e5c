// One Lambda execution environment, run by lambda-environment.ts as
// `node lambda-child.ts <handler module> <function name>` with the function's environment.
// Importing the module is the cold start (its INIT phase); then each event the parent sends over
// IPC is one invocation of the exported `handler`, one at a time as in a Lambda environment.
// stdout/stderr are the function's log stream; results and errors go back over IPC.
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
type Invocation = { type: 'invoke'; id: number; event: unknown };

const [modulePath, functionName = 'toolgate'] = process.argv.slice(2);
const region = process.env.AWS_REGION ?? 'eu-west-1';
const TIMEOUT_MS = 29_000;
const logStreamName = `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${randomBytes(16).toString('hex')}`;

function send(message: unknown): void {
  process.send?.(message);
}

// The parent going away ends the environment (Lambda reclaims it).
process.on('disconnect', () => process.exit(0));

let handler: Handler;
const initStarted = performance.now();
try {
  const module = (await import(pathToFileURL(modulePath).href)) as { handler?: Handler };
  if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a function named handler`);
  handler = module.handler;
} catch (error) {
  // Lambda reports Runtime.ImportModuleError / an init error and never invokes the handler.
  send({ type: 'init-error', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
send({ type: 'ready', initMs: performance.now() - initStarted });

function contextFor(deadline: number) {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

async function invoke(message: Invocation): Promise<void> {
  try {
    const result = await handler(message.event, contextFor(Date.now() + TIMEOUT_MS));
    send({ type: 'result', id: message.id, result: result ?? null });
  } catch (error) {
    send({ type: 'error', id: message.id, errorType: error instanceof Error ? error.name : 'Error', errorMessage: error instanceof Error ? error.message : String(error) });
  }
}

let queue = Promise.resolve();
process.on('message', (message: Invocation) => {
  if (message?.type === 'invoke') queue = queue.then(() => invoke(message));
});
