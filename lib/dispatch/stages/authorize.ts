import { missingScope } from '../../governance/scopes.ts';
import type { ToolDefinition } from '../../registry/definition.ts';
import { genericNaming, type CallNaming } from '../call-naming.ts';
import { fail, pass, type StageResult } from './stage.ts';

export function authorizeStage(definition: ToolDefinition, scopes: ReadonlySet<string> | undefined, naming: CallNaming = genericNaming(definition.name)): StageResult<true> {
  const missing = missingScope(definition, scopes);
  if (missing === undefined) return pass(true);
  return fail({
    code: 'forbidden',
    message: `Tool ${naming.tool} requires scope \`${missing}\`, which this API key does not have.`,
    details: { missing_scope: missing, required_scopes: definition.scopes },
  });
}
