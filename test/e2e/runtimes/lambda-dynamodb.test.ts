import { DYNALITE_CREDENTIALS, DYNALITE_REGION, createTestTable, startDynalite } from '../../support/dynalite.ts';
import type { ScenarioFixtures } from './fixtures.ts';
import { lambdaTarget, startLambdaEnvironment } from './lambda-environment.ts';
import { runtimeScenarios } from './scenarios.ts';

/**
 * functions/lambda.ts in a fresh Node process (a cold start) with only the function's variables,
 * on its own DynamoDB table in dynalite, invoked with the events API Gateway or a function URL
 * would send. TOOLGATE_STORE is left unset: DynamoDB is Lambda's default.
 */
function openLambda(source: 'http-api' | 'function-url') {
  return async (fixtures: ScenarioFixtures) => {
    const dynalite = await startDynalite();
    const table = `toolgate-lambda-${source}`;
    await createTestTable(dynalite.endpoint, table);
    const environment = await startLambdaEnvironment('functions/lambda.ts', {
      ...fixtures.env,
      TOOLGATE_DYNAMODB_TABLE: table,
      TOOLGATE_DYNAMODB_ENDPOINT: dynalite.endpoint,
      AWS_REGION: DYNALITE_REGION,
      AWS_ACCESS_KEY_ID: DYNALITE_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: DYNALITE_CREDENTIALS.secretAccessKey,
    }).catch(async (error: unknown) => {
      await dynalite.stop();
      throw error;
    });
    return lambdaTarget(environment, source, () => dynalite.stop());
  };
}

runtimeScenarios('Lambda (API Gateway v2) on DynamoDB', openLambda('http-api'));
runtimeScenarios('Lambda (Function URL) on DynamoDB', openLambda('function-url'));
