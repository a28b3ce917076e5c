import { isGatewayVariable } from './gateway-variables.ts';

export const TENANT_SECRETS_VARIABLE = 'TOOLGATE_TENANT_SECRETS';

const TENANT = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** TOOLGATE_TENANT_SECRETS cannot be read, or grants what may never be granted: a start-up configuration error. */
export class SecretGrantsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretGrantsError';
  }
}

function parseGrant(grant: string): [string, string[]] {
  const colon = grant.indexOf(':');
  const tenant = grant.slice(0, colon).trim();
  if (colon < 0 || !TENANT.test(tenant)) {
    throw new SecretGrantsError(`${TENANT_SECRETS_VARIABLE}: "${grant}" is not "tenant:NAME,NAME" (a tenant id of lower-case letters, digits, - and _, then the variables it may use)`);
  }
  const names = grant.slice(colon + 1).split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of names) {
    if (!VARIABLE.test(name)) throw new SecretGrantsError(`${TENANT_SECRETS_VARIABLE}: "${name}" (granted to tenant "${tenant}") is not a variable name (letters, digits and _)`);
    if (isGatewayVariable(name)) {
      throw new SecretGrantsError(`${TENANT_SECRETS_VARIABLE} grants ${name} to tenant "${tenant}", but ${name} is one of the gateway's own variables, which no tenant may read: give the tenant a variable of its own (e.g. ${tenant.toUpperCase().replace(/-/g, '_')}_EXEC_SECRET) holding the value it needs`);
    }
  }
  return [tenant, names];
}

/**
 * Which of the gateway's variables each tenant's manifests may name as "env:NAME", from
 * TOOLGATE_TENANT_SECRETS: `demo:DEMO_EXEC_SECRET;acme:ACME_EXEC_SECRET,ACME_TOOLS_SECRET`
 * (";" between tenants, "," between names). Nothing else resolves: deny by default.
 */
export class SecretGrants {
  readonly #byTenant: ReadonlyMap<string, ReadonlySet<string>>;

  private constructor(byTenant: Map<string, Set<string>>) {
    this.#byTenant = byTenant;
  }

  static parse(value: string | undefined): SecretGrants {
    const byTenant = new Map<string, Set<string>>();
    for (const grant of (value ?? '').split(';').map((part) => part.trim()).filter((part) => part !== '')) {
      const [tenant, names] = parseGrant(grant);
      const granted = byTenant.get(tenant) ?? new Set<string>();
      for (const name of names) granted.add(name);
      byTenant.set(tenant, granted);
    }
    return new SecretGrants(byTenant);
  }

  /** Grants nothing: what a gateway without TOOLGATE_TENANT_SECRETS has. */
  static readonly none = SecretGrants.parse(undefined);

  static fromEnv(env: Readonly<Record<string, string | undefined>>): SecretGrants {
    return SecretGrants.parse(env[TENANT_SECRETS_VARIABLE]);
  }

  isGranted(tenant: string, name: string): boolean {
    return !isGatewayVariable(name) && (this.#byTenant.get(tenant)?.has(name) ?? false);
  }

  namesFor(tenant: string): string[] {
    return [...(this.#byTenant.get(tenant) ?? [])];
  }
}
