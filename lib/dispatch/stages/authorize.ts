import { missingScope } from '../../governance/scopes.ts';
import type { ToolDefinition } from '../../registry/definition.ts';
import { fail, pass, type StageResult } from './stage.ts';

export function authorizeStage(definition: ToolDefinition, scopes: ReadonlySet<string> | undefined): StageResult<true> {
  const missing = missingScope(definition, scopes);
  if (missing === undefined) return pass(true);
  return fail({
    code: 'forbidden',
    message: `Tool \`${definition.name}\` requires scope \`${missing}\`, which this API key does not have.`,
    details: { missing_scope: missing, required_scopes: definition.scopes },
  });
}
