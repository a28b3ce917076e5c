/**
 * Which environment variables a command must not inherit from the exec-server's own process.
 * The server holds TOOLGATE_EXEC_SECRET and whatever else its operator exported; a command
 * that an agent writes (and a model chose) must not be able to print them with `env`.
 *
 * The rule errs towards removing: a name is secret-looking when one of its words (split at
 * `_`, `-`, `.` and camelCase humps) is a secret word, or when the whole name, squashed to
 * letters and digits, ends in one (catches `PGPASSWORD`, `NPMTOKEN`). Removing a harmless
 * variable costs little; leaking a key costs a lot.
 */
const SECRET_WORDS = new Set([
  'KEY', 'KEYS', 'APIKEY', 'APIKEYS', 'PRIVATEKEY',
  'SECRET', 'SECRETS',
  'TOKEN', 'TOKENS', 'PAT',
  'PASSWORD', 'PASSWORDS', 'PASSWD', 'PASS', 'PASSPHRASE',
  'CREDENTIAL', 'CREDENTIALS', 'CREDS',
]);

const SECRET_ENDING = /(APIKEYS?|SECRETS?|TOKENS?|PASSWORDS?|PASSWD|PASSPHRASE|CREDENTIALS?)$/;

export function looksLikeSecretName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase().split(/[^A-Z0-9]+/);
  if (words.some((word) => SECRET_WORDS.has(word))) return true;
  return SECRET_ENDING.test(name.toUpperCase().replace(/[^A-Z0-9]/g, ''));
}

/** A copy of `env` without secret-looking names (and without unset values). */
export function withoutSecrets(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !looksLikeSecretName(name)) kept[name] = value;
  }
  return kept;
}
