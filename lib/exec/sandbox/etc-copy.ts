import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeFolder, removeStaleLeftovers } from './stale-leftovers.ts';

/**
 * The /etc a sandboxed command sees: the entries programs need (users and groups, name
 * resolution, the dynamic linker, time zone, TLS roots, Debian's alternatives links, tool
 * defaults), nothing else. An allowlist, not /etc minus known secrets: /etc also holds
 * /etc/shadow, ssh host keys, /etc/ssl/private, and whatever the operator's other software keeps
 * there (npmrc and pip.conf tokens, database and web server passwords, /etc/environment); a
 * missing entry breaks a program visibly and is one flag away (--read-only-path), a missing
 * denial leaks silently.
 *
 * The entries are copied once, when the exec-server starts, into a private folder that each
 * sandbox mounts read-only as /etc: one mount per command instead of thirty (the binds were
 * most of bubblewrap's start-up time). So a change to them (a new user, /etc/hosts) reaches
 * commands when the exec-server restarts.
 */
const ETC_ALLOWLIST = [
  'passwd', 'group', 'nsswitch.conf', 'hosts', 'host.conf', 'resolv.conf', 'gai.conf', 'services', 'protocols', 'networks',
  'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'localtime', 'timezone', 'locale.alias', 'locale.conf',
  'alternatives', 'ssl/certs', 'ssl/openssl.cnf', 'ca-certificates', 'ca-certificates.conf', 'pki/tls/certs', 'pki/ca-trust', 'crypto-policies',
  'gitconfig', 'mime.types', 'magic', 'magic.mime', 'os-release', 'debian_version', 'perl',
];

/** Program configuration folders named per version (java-17-openjdk: the JDK's conf/ links there). */
const ETC_ALLOWED_PREFIXES = ['java-', 'python3'];

/** Named with the owner's pid, so a later server can remove the copy of one that was killed. */
const ETC_COPY_PREFIX = 'toolgate-sandbox-etc-';

/** Copies the allowed entries of /etc into a new private folder and answers its path (remove it when done). */
export function copyAllowedEtc(): string {
  removeStaleLeftovers(tmpdir(), ETC_COPY_PREFIX, removeFolder);
  const copy = mkdtempSync(join(tmpdir(), `${ETC_COPY_PREFIX}${process.pid}-`));
  for (const name of allowedEntries()) {
    const source = join('/etc', name);
    const target = join(copy, name);
    mkdirSync(dirname(target), { recursive: true });
    // A top-level link (localtime, os-release, resolv.conf) may point anywhere: copy what it names.
    // Links inside a copied folder (ssl/certs, alternatives) point into /usr, which commands see.
    const dereference = lstatSync(source).isSymbolicLink();
    cpSync(source, target, { recursive: true, dereference, verbatimSymlinks: !dereference });
  }
  // mkdtemp makes it owner-only; /etc is world-readable (programs that drop privileges still read passwd).
  chmodSync(copy, 0o755);
  return copy;
}

function allowedEntries(): string[] {
  let names: string[] = [];
  try {
    names = readdirSync('/etc');
  } catch {
    return [];
  }
  const versioned = names.filter((name) => ETC_ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix)));
  return [...ETC_ALLOWLIST, ...versioned].filter((name) => existsSync(join('/etc', name)));
}
