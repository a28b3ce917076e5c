import { Hono, type Context } from 'hono';
import { loadConditionEngine } from '../../governance/conditions/condition.ts';
import { hasRuleConditions } from '../../registry/manifest/rule-conditions-check.ts';
import { AuditRecorder } from '../../audit/recorder.ts';
import { egressFetch } from '../../egress/fetch.ts';
import { EgressPolicy } from '../../egress/policy.ts';
import { silentLogger, type Logger } from '../../dispatch/events.ts';
import type { TenantDirectory } from '../../dispatch/tenant-directory.ts';
import type { ApiKeyLifecycle } from '../../governance/key-lifecycle.ts';
import { defaultExecutorKinds } from '../../registry/executors/index.ts';
import { diffManifests } from '../../registry/manifest/diff.ts';
import type { ConfinementChecks } from '../../registry/manifest/confinement.ts';
import { loadManifest } from '../../registry/manifest/loader.ts';
import { unpinnedImports } from '../../registry/mcp-upstream/import-check.ts';
import { activateManifest, listManifests, loadActivePointer, loadPublished, ManifestLifecycleError, publishManifest, rollbackManifest } from '../../registry/manifest/manifest-store.ts';
import type { Store } from '../../stores/store.ts';
import { builtinsForUncheckedManifest } from '../../tools/tenant-tools.ts';
import type { SchemaValidator } from '../../validation/validator.ts';
import { requireScope } from '../auth.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';
import { DEFAULT_MANIFEST_BODY_LIMIT_BYTES, readManifestBody } from '../manifest-body.ts';
import { MANIFEST_VERSION } from '../identifiers.ts';
import { identifierParam, identifierQuery } from '../params.ts';
import { readEmptyBody } from '../strict-body.ts';
import { adminKeyRoutes } from './admin-keys.ts';


function lifecycleError(c: Context, error: unknown) {
  if (!(error instanceof ManifestLifecycleError)) throw error;
  return errorResponse(c, error.code === 'conflict' ? 409 : 404, error.code, error.message);
}

/**
 * Operator routes (scope `admin`), always within the key's own tenant: API keys (admin-keys.ts), and the
 * manifest lifecycle (publish, activate, rollback, list, diff), every step audited.
 */
export function adminRoutes(store: Store, tenants: TenantDirectory, validator: SchemaValidator, confinement: ConfinementChecks, keys: ApiKeyLifecycle, log: Logger = silentLogger, manifestBodyLimitBytes = DEFAULT_MANIFEST_BODY_LIMIT_BYTES) {
  const routes = new Hono<GatewayEnv>();
  const audit = new AuditRecorder(store);
  routes.use('*', requireScope('admin'));
  const actor = (c: Context<GatewayEnv>) => c.get('principal').principal;
  const tenantOf = (c: Context<GatewayEnv>) => c.get('principal').tenant;

  routes.route('/keys', adminKeyRoutes(keys));

  routes.post('/manifests', async (c) => {
    const read = await readManifestBody(c, manifestBodyLimitBytes);
    if (!read.ok) return read.response;
    // Grants are checked only for the caller's own tenant: another tenant's are none of its business.
    const ownTenant = (read.body as { tenant?: unknown } | null)?.tenant === tenantOf(c);
    // Rule conditions are checked by the CEL engine, loaded only for manifests that have some.
    if (hasRuleConditions(read.body)) await loadConditionEngine();
    const checked = loadManifest(read.body, { validator, kinds: defaultExecutorKinds(), builtins: builtinsForUncheckedManifest, confinement: ownTenant ? confinement : {} });
    if (!checked.ok) return c.json({ error: { code: 'invalid_manifest', message: `the manifest has ${checked.problems.length} problem(s)`, problems: checked.problems } }, 400);
    if (checked.manifest.tenant !== tenantOf(c)) return errorResponse(c, 404, 'not_found', `tenant "${checked.manifest.tenant}" not found`);
    // Connections discovered from an issuer: its metadata read now, through egress (lib/connections/publish-discovery.ts).
    if (checked.manifest.connections && Object.values(checked.manifest.connections).some((connection) => connection.issuer)) {
      const { discoveryProblems } = await import('../../connections/publish-discovery.ts');
      const problems = await discoveryProblems(checked.manifest, egressFetch(confinement.egress ?? new EgressPolicy()), confinement.egress);
      if (problems.length > 0) return c.json({ error: { code: 'invalid_manifest', message: `the manifest has ${problems.length} problem(s)`, problems } }, 400);
    }
    const unpinned = unpinnedImports(checked.manifest);
    if (unpinned.length > 0) {
      return errorResponse(c, 400, 'invalid_manifest', `mcp_imports ${unpinned.map((s) => `"${s}"`).join(', ')} have no pinned tools: pin them with \`toolgate manifest import-mcp\` (or publish with \`toolgate manifest publish\`, which pins first)`);
    }
    try {
      const published = await publishManifest(store, audit, checked.manifest, actor(c), { checked: true });
      // The version's tool search index, built once here rather than by every isolate that serves it (lib/search).
      const { indexPublishedManifest } = await import('../../search/publish-index.ts');
      await indexPublishedManifest(store, checked.manifest, log);
      return c.json(published, published.status === 'published' ? 201 : 200);
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  routes.get('/manifests', async (c) => {
    const [versions, pointer] = await Promise.all([listManifests(store, tenantOf(c)), loadActivePointer(store, tenantOf(c))]);
    return c.json({ tenant: tenantOf(c), active: pointer?.version ?? null, versions });
  });

  routes.get('/manifests/diff', async (c) => {
    const [from, to] = [identifierQuery(c, 'from', MANIFEST_VERSION), identifierQuery(c, 'to', MANIFEST_VERSION)];
    const [a, b] = await Promise.all([loadPublished(store, tenantOf(c), from), loadPublished(store, tenantOf(c), to)]);
    if (!a || !b) return errorResponse(c, 404, 'not_found', `version ${!a ? from : to} is not published`);
    return c.json({ from, to, ...diffManifests(a.manifest, b.manifest) });
  });

  routes.get('/manifests/:version', async (c) => {
    const version = identifierParam(c, 'version', MANIFEST_VERSION, 'version');
    const published = await loadPublished(store, tenantOf(c), version);
    if (!published) return errorResponse(c, 404, 'not_found', `version ${version} is not published`);
    return c.json(published);
  });

  routes.post('/manifests/rollback', async (c) => {
    const read = await readEmptyBody(c, 'rollback takes no body: it returns to the version active before; to make a given version active, POST /v1/admin/manifests/VERSION/activate');
    if (!read.ok) return read.response;
    try {
      const moved = await rollbackManifest(store, audit, tenantOf(c), actor(c));
      tenants.invalidate?.(tenantOf(c));
      return c.json(moved);
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  routes.post('/manifests/:version/activate', async (c) => {
    const version = identifierParam(c, 'version', MANIFEST_VERSION, 'version');
    const read = await readEmptyBody(c, 'activate takes no body: the version to make active is in the path');
    if (!read.ok) return read.response;
    try {
      const moved = await activateManifest(store, audit, tenantOf(c), version, actor(c));
      tenants.invalidate?.(tenantOf(c));
      return c.json(moved);
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  return routes;
}
