/** An RFC 6750 auth-param value: a quoted-string without quotes or backslashes (they are replaced, not escaped, for old parsers). */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?')}"`;
}

/** `Bearer` with its auth-params: `Bearer resource_metadata="…", error="invalid_token"`. */
export function bearerChallenge(params: Record<string, string | undefined>): string {
  const listed = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return listed.length === 0 ? 'Bearer' : `Bearer ${listed.map(([name, value]) => `${name}=${quoted(value)}`).join(', ')}`;
}

/** The challenge with `resource_metadata` first (RFC 9728 section 5.1), where the route has protected-resource metadata. */
export function withResourceMetadata(challenge: string, metadataUrl: string | undefined): string {
  if (metadataUrl === undefined) return challenge;
  const rest = challenge.replace(/^Bearer\s*/, '');
  return `Bearer resource_metadata=${quoted(metadataUrl)}${rest ? `, ${rest}` : ''}`;
}
