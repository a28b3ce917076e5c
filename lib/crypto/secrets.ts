/** Manifests name secrets as "env:NAME"; the runtime's env or bindings hold the values. */
export const SECRET_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/** A secret a call needs cannot be had; nothing was sent with it. */
export class MissingSecretError extends Error {
  readonly secret: string;
  constructor(name: string, message = `secret ${name} is not set: set the environment variable ${name} (a secret binding on Workers, e.g. \`wrangler secret put ${name}\`)`) {
    super(message);
    this.name = 'MissingSecretError';
    this.secret = name;
  }
}

/** The NAME of an "env:NAME" reference, or undefined. */
export function secretName(reference: string): string | undefined {
  return SECRET_REFERENCE.exec(reference)?.[1];
}

/** Resolves one "env:NAME" reference, or throws (MissingSecretError when it has no value). */
export type ResolveSecret = (reference: string) => string;

export function resolveSecret(reference: string, env: Readonly<Record<string, string | undefined>>): string {
  const name = secretName(reference);
  if (!name) throw new Error(`"${reference}" is not a secret reference; write it as "env:NAME"`);
  const value = env[name];
  if (value === undefined || value === '') throw new MissingSecretError(name);
  return value;
}
