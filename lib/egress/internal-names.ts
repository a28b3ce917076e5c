/** Host names of the gateway's own machine or of cloud metadata services. */
const INTERNAL_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata.goog', 'instance-data.ec2.internal']);

/** Suffixes reserved for local and private networks (RFC 6761, RFC 8375, cloud-internal DNS, common LAN names). */
const INTERNAL_SUFFIXES = ['.localhost', '.internal', '.local', '.localdomain', '.home.arpa', '.lan', '.intranet', '.corp', '.private'];

/**
 * Whether a host name is internal by its name alone, so it is refused before (and without) any
 * DNS lookup: what Workers, which cannot resolve names, can still check. A name without a dot
 * ("metadata", "redis") resolves through the machine's search domains, so it is internal too.
 */
export function isInternalHostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (!name.includes('.')) return true;
  return INTERNAL_NAMES.has(name) || INTERNAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}
