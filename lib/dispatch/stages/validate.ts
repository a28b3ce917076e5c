import type { ToolDefinition } from '../../registry/definition.ts';
import { withPatternBudget, type PatternBudget } from '../../patterns/index.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { FailedValidation } from '../../validation/validator.ts';
import { ValidationBudget, validationWork } from '../../validation/work-budget.ts';
import type { CallFailure } from '../call.ts';
import { genericNaming, type CallNaming } from '../call-naming.ts';
import type { SchemaCache } from '../schema-cache.ts';
import { fail, pass, type StageResult } from './stage.ts';

/** The line after the listed problems saying what is not listed, if anything. */
function unlistedLine(outcome: FailedValidation): string | undefined {
  if (outcome.incomplete) return '- … and more not listed: the arguments have too many problems to collect them all';
  if (outcome.omitted) return `- … and ${outcome.omitted} more problem${outcome.omitted === 1 ? '' : 's'} not listed`;
  return undefined;
}

/**
 * The problems listed for the model, in its terms (CallNaming.violation). Problems with values the
 * model has no parameter for (the gateway set them when it translated a native call) are counted
 * on one line that says no change to the call can fix them.
 */
function invalidArgumentsMessage(outcome: FailedValidation, naming: CallNaming): string {
  const listed = outcome.violations.flatMap((v) => naming.violation(v) ?? []);
  const unnamed = outcome.violations.length - listed.length;
  const unlisted = unlistedLine(outcome);
  const lines = [
    ...listed.map((line) => `- ${line}`),
    ...(unnamed > 0 ? [`- ${unnamed} problem${unnamed === 1 ? '' : 's'} with values the gateway sets by itself to run ${naming.tool}, which no ${naming.input} can change: tell the user that ${naming.tool} cannot do this here.`] : []),
    ...(unlisted ? [unlisted] : []),
  ];
  const fix = listed.length > 0 || unlisted ? `\nFix the ${naming.input} and call the tool again.` : '';
  return `Invalid ${naming.input} for tool ${naming.tool}:\n${lines.join('\n')}${fix}`;
}

/**
 * A call whose validation would cost more than its request may still spend (work-budget.ts):
 * too many values for the schema on its own, or after the request's earlier calls.
 */
function validationWorkRefused(naming: CallNaming, charged: ReturnType<typeof validationWork>, work: ValidationBudget): CallFailure {
  const details = { reason: 'validation_budget_spent', values: charged.values, work_per_value: charged.perValue, request_work: work.units };
  if (charged.work > work.units) {
    const values = charged.values.toLocaleString('en-US');
    const message = `${naming.tool} was not run: its arguments hold ${values} values, and its schema may apply up to ${charged.perValue.toLocaleString('en-US')} subschemas to each, more validation work than one request may take (${work.units.toLocaleString('en-US')}). Send fewer values (shorter arrays, fewer properties), split the work over several calls in separate requests, or have the tool's schema simplified.`;
    return { code: 'invalid_arguments', message, details };
  }
  const message = `${naming.tool} was not run: this request's earlier calls used up the validation work one request may take. Send this call again in another request.`;
  return { code: 'error', message, details };
}

/**
 * JSON Schema validation; the message lists the violations (at most a few dozen, the first ones,
 * then how many more) so the model can fix its call in one go and the answer stays small. With a
 * request's pattern budget, the validation (not the schema's compiling, on first use) charges it;
 * its work is charged to the request's validation budget (one of its own when none is given)
 * before the engine starts, as the engine cannot be stopped once it has.
 */
export function validateStage(
  schemas: SchemaCache,
  definition: ToolDefinition,
  args: JsonObject,
  budget?: PatternBudget,
  work?: ValidationBudget,
  naming: CallNaming = genericNaming(definition.name),
): StageResult<JsonObject> {
  let compiled;
  try {
    compiled = schemas.get(definition);
  } catch (error) {
    return fail({ code: 'error', message: `Tool ${naming.tool} has an invalid input schema: ${(error as Error).message}` });
  }
  const workBudget = work ?? new ValidationBudget();
  const charged = validationWork(definition.input_schema, args);
  if (!workBudget.tryCharge(charged.work)) return fail(validationWorkRefused(naming, charged, workBudget));
  let outcome;
  try {
    outcome = budget ? withPatternBudget(() => compiled(args), budget) : compiled(args);
  } catch (error) {
    // An engine failure is this call's problem, never the request's (no HTTP 500 from /validate).
    return fail({ code: 'error', message: `Could not validate the arguments of tool ${naming.tool}: ${(error as Error).message}` });
  }
  if (outcome.valid) return pass(args);
  return fail({
    code: 'invalid_arguments',
    message: invalidArgumentsMessage(outcome, naming),
    details: {
      violations: outcome.violations.map((v) => ({ path: v.pointer, keyword: v.keyword, message: v.message })),
      ...(outcome.omitted ? { omitted: outcome.omitted } : {}),
      ...(outcome.incomplete ? { incomplete: true } : {}),
    },
  });
}
