import { isGatewayVariable } from './gateway-variables.ts';
import { SecretGrants, TENANT_SECRETS_VARIABLE } from './secret-grants.ts';
import { MissingSecretError, resolveSecret, secretName, type ResolveSecret } from './secrets.ts';

/** Why `tenant` may not use `name`, or undefined when the operator granted it. */
export function secretRefusal(tenant: string, name: string, grants: SecretGrants): string | undefined {
  if (isGatewayVariable(name)) return `${name} is one of the gateway's own variables, which no manifest may use; use a variable the operator grants to tenant "${tenant}" in ${TENANT_SECRETS_VARIABLE}`;
  if (!grants.isGranted(tenant, name)) return `secret ${name} is not granted to tenant "${tenant}": the operator grants it in ${TENANT_SECRETS_VARIABLE} (e.g. "${tenant}:${name}")`;
  return undefined;
}

/**
 * How one tenant's manifest resolves "env:NAME": only names the operator granted to that tenant,
 * never the gateway's own variables, whatever the manifest says (a manifest stored before grants
 * existed included). A refusal is a MissingSecretError: the call fails before anything is sent.
 */
export function tenantSecretResolver(tenant: string, grants: SecretGrants, env: Readonly<Record<string, string | undefined>>): ResolveSecret {
  return (reference) => {
    const name = secretName(reference);
    const refusal = name === undefined ? undefined : secretRefusal(tenant, name, grants);
    if (name !== undefined && refusal) throw new MissingSecretError(name, refusal);
    return resolveSecret(reference, env);
  };
}
