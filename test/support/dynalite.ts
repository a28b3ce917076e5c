import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createDynamoDbClient, createDynamoDbTable, DynamoDbStore, type DynamoDbClientOptions } from '../../lib/stores/dynamodb/dynamodb-store.ts';
import { addTransactWriteItems } from './dynalite-transactions.ts';

// dynalite is CommonJS without type declarations.
const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }) => Server;

export const DYNALITE_REGION = 'us-east-1';
/** dynalite checks that requests are signed, not by whom. */
export const DYNALITE_CREDENTIALS = { accessKeyId: 'dynalite', secretAccessKey: 'dynalite' };

export interface RunningDynalite {
  endpoint: string;
  port: number;
  /** Stops the server and drops its open connections; its tables are gone. */
  stop(): Promise<void>;
}

/**
 * dynalite in this process, in memory, on 127.0.0.1 (a free port unless `port` is given, e.g. to
 * restart on the same one), with tables active at once and TransactWriteItems added.
 */
export async function startDynalite(options: { port?: number } = {}): Promise<RunningDynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  addTransactWriteItems(server, endpoint);
  return { endpoint, port, stop: () => stop(server) };
}

/** Client options for a dynalite endpoint; `extra` overrides (timeouts, a counting fetch). */
export function dynaliteClientOptions(endpoint: string, extra: Partial<DynamoDbClientOptions> = {}): DynamoDbClientOptions {
  return { region: DYNALITE_REGION, endpoint, credentials: DYNALITE_CREDENTIALS, ...extra };
}

let tables = 0;

/** Creates a table with a name not used before in this process and returns the name. */
export async function createFreshTable(endpoint: string): Promise<string> {
  const table = `toolgate-test-${process.pid}-${++tables}`;
  await createTestTable(endpoint, table);
  return table;
}

/** createDynamoDbTable, except that dynalite's missing UpdateTimeToLive is tolerated (tests only). */
export async function createTestTable(endpoint: string, table: string): Promise<void> {
  try {
    await createDynamoDbTable(createDynamoDbClient(dynaliteClientOptions(endpoint)), table);
  } catch (error) {
    if (!(error instanceof Error && error.cause instanceof Error && error.cause.name === 'UnknownOperationException')) throw error;
  }
}

/** A DynamoDbStore on a fresh table of its own dynalite (the shape of the other store fixtures). */
export async function openDynamoDbStore(options: { now?: () => number; client?: Partial<DynamoDbClientOptions> } = {}) {
  const dynalite = await startDynalite();
  const table = await createFreshTable(dynalite.endpoint);
  const store = new DynamoDbStore({ client: createDynamoDbClient(dynaliteClientOptions(dynalite.endpoint, options.client)), table, ...(options.now ? { now: options.now } : {}) });
  return {
    store,
    dynalite,
    table,
    stop: async () => {
      await store.close();
      await dynalite.stop();
    },
  };
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Resolves whatever close() reports: stopping twice, or a slow graceful shutdown, is fine here.
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
