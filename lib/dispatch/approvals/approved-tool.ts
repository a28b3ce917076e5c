import type { Approval } from '../../governance/approval.ts';
import { hashJson } from '../../idempotency/canonical-json.ts';
import type { ToolDefinition } from '../../registry/definition.ts';
import { boundDefinition, definitionHash } from '../../registry/definition-binding.ts';
import type { ToolExecutor } from '../../registry/executor.ts';
import { executorTarget, type ExecutorTarget } from '../../registry/executor-target.ts';
import { builtinTools } from '../../tools/builtins.ts';
import type { CallFailure } from '../call.ts';
import { approvalNaming } from '../call-naming.ts';
import type { DispatchDeps } from '../context.ts';
import { UnusableVersionError, type ManifestVersions, type VersionTools } from '../manifest-versions.ts';
import type { SchemaCache } from '../schema-cache.ts';

/** What a parked call is bound to: the version and the hash of the tool's definition, and what reviewers are shown of it. */
export interface DefinitionBinding {
  manifest_version?: string;
  definition_hash: string;
  target: ExecutorTarget;
}

/** The tool an approved call runs, with the schemas of its version; or why it does not run. */
export type ApprovedTool = { ok: true; executor: ToolExecutor; schemas: SchemaCache } | { ok: false; failure: CallFailure };

/** Built-ins that run inside the gateway; the others (the coding tools) run on the exec-server. */
const IN_GATEWAY = new Set(builtinTools().keys());
const CODE_TARGET: ExecutorTarget = { kind: 'code', summary: 'a tool registered in code (ToolRouter)' };

/**
 * Without manifests (library use) a tool is its definition: its handler is code, which no hash
 * covers. Taken as JSON first: a definition written in code may hold what JSON cannot (Infinity).
 */
const codeDefinitionHash = (definition: ToolDefinition) => hashJson(JSON.parse(JSON.stringify({ definition })));

/** The binding of a tool of the version this runtime serves (the caller found it there). */
export async function bindingFor(deps: DispatchDeps, definition: ToolDefinition): Promise<DefinitionBinding> {
  const serving = deps.versions?.serving;
  if (!serving) return { definition_hash: await codeDefinitionHash(definition), target: CODE_TARGET };
  const bound = boundDefinition(serving.manifest, definition.name);
  return { manifest_version: serving.manifest.version, definition_hash: await definitionHash(bound), target: executorTarget(bound, (name) => IN_GATEWAY.has(name)) };
}

/**
 * The definition an approved call runs: the tool as defined in the manifest version it was
 * parked under (not the active one), built with today's secret grants and egress, provided its
 * hash is still the approved one. An approval stored before hashes existed is bound by its
 * version alone (published versions are immutable). A store that cannot be read throws: the
 * call then never started, and the approval ends `interrupted` (interrupted-approval.ts).
 */
export async function approvedTool(deps: DispatchDeps, approval: Approval): Promise<ApprovedTool> {
  if (!deps.versions) return approvedInRegistry(deps, approval);
  const version = approval.manifest_version;
  if (version === undefined) return refused(approval, 'unbound', 'its approval names no manifest version, so what was approved is unknown');
  const tools = await versionTools(deps.versions, version);
  if (!tools.ok) return refused(approval, 'version_unusable', `the manifest version it was parked under can no longer be built: ${tools.reason}`);
  if (!tools.value) return refused(approval, 'version_removed', `the manifest version ${version} it was parked under is no longer stored`);
  const executor = tools.value.registry.get(approval.tool);
  if (!executor) return refused(approval, 'tool_removed', `the manifest version ${version} it was parked under no longer defines it`);
  if (approval.definition_hash !== undefined && (await definitionHash(boundDefinition(tools.value.manifest, approval.tool))) !== approval.definition_hash) {
    return refused(approval, 'definition_changed', `its definition in manifest version ${version} is no longer the one that was approved (the stored version was changed)`);
  }
  return { ok: true, executor, schemas: tools.value.schemas };
}

async function versionTools(versions: ManifestVersions, version: string): Promise<{ ok: true; value: VersionTools | undefined } | { ok: false; reason: string }> {
  if (version === versions.serving.manifest.version) return { ok: true, value: versions.serving };
  try {
    return { ok: true, value: await versions.load(version) };
  } catch (error) {
    // Only a version that cannot be built is answered here; a store that cannot be read propagates (see approvedTool).
    if (!(error instanceof UnusableVersionError)) throw error;
    return { ok: false, reason: error.message };
  }
}

/** Library use: the registry's tool, if its definition is still the one approved. */
async function approvedInRegistry(deps: DispatchDeps, approval: Approval): Promise<ApprovedTool> {
  const executor = deps.registry.get(approval.tool);
  if (!executor) return refused(approval, 'tool_removed', 'the tool is no longer registered');
  if (approval.definition_hash !== undefined && (await codeDefinitionHash(executor.definition)) !== approval.definition_hash) {
    return refused(approval, 'definition_changed', 'its registered definition is no longer the one that was approved');
  }
  return { ok: true, executor, schemas: deps.schemas };
}

function refused(approval: Approval, reason: string, why: string): ApprovedTool {
  const naming = approvalNaming(approval);
  return {
    ok: false,
    failure: {
      code: 'expired',
      message:
        `This call of ${naming.tool} was approved but did not run: ${why}. An approval runs only the tool definition it was parked under. ` +
        `To run it, send the call again under a new ${naming.callId}, to be reviewed as the tool is defined now.`,
      details: { approval_id: approval.id, reason, ...(approval.manifest_version ? { manifest_version: approval.manifest_version } : {}), ...(approval.definition_hash ? { definition_hash: approval.definition_hash } : {}) },
    },
  };
}
