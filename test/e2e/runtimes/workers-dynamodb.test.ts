import { createFreshTable, DYNALITE_CREDENTIALS, DYNALITE_REGION, startDynalite, type RunningDynalite } from '../../support/dynalite.ts';
import { runtimeScenarios } from './scenarios.ts';
import { openWorker } from './workers.ts';

/**
 * Cloudflare Workers on DynamoDB: the wrangler-built Worker in workerd, state in dynalite (with the
 * TransactWriteItems stand-in), which runs in this test process and which workerd reaches over HTTP.
 */
runtimeScenarios('Workers on DynamoDB', async (fixtures) => {
  let dynalite: RunningDynalite | undefined;
  try {
    dynalite = await startDynalite();
    const table = await createFreshTable(dynalite.endpoint);
    const worker = await openWorker(fixtures, {
      TOOLGATE_STORE: 'dynamodb',
      TOOLGATE_DYNAMODB_TABLE: table,
      AWS_REGION: DYNALITE_REGION,
      TOOLGATE_DYNAMODB_ENDPOINT: dynalite.endpoint,
      AWS_ACCESS_KEY_ID: DYNALITE_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: DYNALITE_CREDENTIALS.secretAccessKey,
    });
    const running = dynalite;
    return {
      fetch: worker.fetch,
      stop: async () => {
        await worker.stop();
        await running.stop();
      },
    };
  } catch (error) {
    await dynalite?.stop();
    throw error;
  }
});
