/**
 * Which person a principal name stands for, as far as approvals count people. Names come from
 * key records, token claims (whatever claim the tenant names) and Slack mappings, so "alice",
 * "Alice", "alice " and a full-width "ａｌｉｃｅ" would otherwise be four approvers, or a
 * requester approving their own call under another spelling. Compared after Unicode NFKC, without
 * invisible format characters, with whitespace trimmed and collapsed, lower-cased. Two names that
 * differ only so are taken as one person: that can only refuse a decision, never allow one.
 */
export function principalIdentity(name: string): string {
  return name.normalize('NFKC').replace(/\p{Cf}/gu, '').replace(/\s+/gu, ' ').trim().toLowerCase();
}

export const samePrincipal = (a: string, b: string) => principalIdentity(a) === principalIdentity(b);
