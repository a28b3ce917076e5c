import type { DynamoDbClient } from './client.ts';

const ACTIVE_WAIT_MS = 120_000;
const POLL_MS = 500;

/**
 * Creates the store's table (on-demand capacity, string keys `pk` and `sk`), waits until it is
 * active, and turns on TTL for the attribute `ttl` so DynamoDB sweeps expired records. An
 * existing table is accepted, so this can run on every deploy. TTL only reclaims space: the
 * store decides expiry itself, so a table without TTL is correct, it just keeps dead items.
 */
export async function createDynamoDbTable(client: DynamoDbClient, tableName: string): Promise<void> {
  await createIfMissing(client, tableName);
  await waitUntilActive(client, tableName);
  await enableTimeToLive(client, tableName);
}

async function createIfMissing(client: DynamoDbClient, tableName: string): Promise<void> {
  try {
    await client.send('CreateTable', {
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceInUseException') return;
    throw new Error(`could not create DynamoDB table "${tableName}": ${message(error)}; check the region, endpoint and that the credentials may call dynamodb:CreateTable`, { cause: error });
  }
}

async function waitUntilActive(client: DynamoDbClient, tableName: string): Promise<void> {
  const deadline = Date.now() + ACTIVE_WAIT_MS;
  while (Date.now() < deadline) {
    const { Table } = await client.send('DescribeTable', { TableName: tableName });
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`DynamoDB table "${tableName}" did not become ACTIVE within ${ACTIVE_WAIT_MS / 1000} s; look at it in the AWS console and run this again`);
}

async function enableTimeToLive(client: DynamoDbClient, tableName: string): Promise<void> {
  try {
    const { TimeToLiveDescription: ttl } = await client.send('DescribeTimeToLive', { TableName: tableName });
    if (ttl?.AttributeName === 'ttl' && (ttl.TimeToLiveStatus === 'ENABLED' || ttl.TimeToLiveStatus === 'ENABLING')) return;
    await client.send('UpdateTimeToLive', { TableName: tableName, TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } });
  } catch (error) {
    throw new Error(
      `could not enable TTL on attribute "ttl" of DynamoDB table "${tableName}": ${message(error)}; ` +
        `enable it with \`aws dynamodb update-time-to-live --table-name ${tableName} --time-to-live-specification Enabled=true,AttributeName=ttl\``,
      { cause: error },
    );
  }
}

function message(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
