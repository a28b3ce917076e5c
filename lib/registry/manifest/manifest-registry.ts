import type { ToolDefinition } from '../definition.ts';
import type { ToolExecutor } from '../executor.ts';
import type { ExecutorKind, ExecutorKindContext } from '../executors/kind.ts';
import type { Manifest, ManifestTool } from './manifest.ts';
import { ToolRegistry } from '../registry.ts';

/** The manifest's fields over the executor's own definition; unknown tiers default to write (deny by default). */
export function definitionFromManifest(entry: ManifestTool, base: ToolDefinition | undefined): ToolDefinition {
  return {
    name: entry.name,
    description: entry.description ?? base?.description ?? '',
    input_schema: entry.input_schema ?? base?.input_schema ?? { type: 'object' },
    ...(entry.output_schema ?? base?.output_schema ? { output_schema: entry.output_schema ?? base?.output_schema } : {}),
    tier: entry.tier ?? base?.tier ?? 'write',
    scopes: entry.scopes ?? base?.scopes ?? [],
    tags: entry.tags ?? base?.tags ?? [],
    timeout_ms: entry.timeout_ms ?? base?.timeout_ms,
    idempotency: entry.idempotency ?? base?.idempotency,
    output: entry.output || base?.output ? { ...base?.output, ...entry.output } : undefined,
  };
}

/**
 * A tenant's registry: the profile's built-in tools first, then the manifest's tools, which
 * replace a built-in of the same name (latest wins across layers). The manifest must have
 * passed loadManifest, which rejects duplicates within it.
 */
export function buildManifestRegistry(
  manifest: Manifest,
  kinds: ReadonlyMap<string, ExecutorKind>,
  context: ExecutorKindContext,
  profileTools: ToolExecutor[] = [],
): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of profileTools) registry.register(tool);
  for (const entry of manifest.tools) {
    const kind = kinds.get(entry.executor.kind);
    if (!kind) throw new Error(`unknown executor kind "${entry.executor.kind}"`);
    const definition = definitionFromManifest(entry, kind.baseDefinition(entry.executor, entry.name, context));
    registry.register(kind.create(definition, entry.executor, context), { replace: true });
  }
  return registry;
}
