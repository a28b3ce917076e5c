/** Manifests name secrets as "env:NAME"; the runtime's env or bindings hold the values. */
export const SECRET_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

export class MissingSecretError extends Error {
  constructor(name: string) {
    super(`secret ${name} is not set: set the environment variable ${name} (a secret binding on Workers, e.g. \`wrangler secret put ${name}\`)`);
    this.name = 'MissingSecretError';
  }
}

export function resolveSecret(reference: string, env: Readonly<Record<string, string | undefined>>): string {
  const name = SECRET_REFERENCE.exec(reference)?.[1];
  if (!name) throw new Error(`"${reference}" is not a secret reference; write it as "env:NAME"`);
  const value = env[name];
  if (value === undefined || value === '') throw new MissingSecretError(name);
  return value;
}
