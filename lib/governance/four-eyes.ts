import { isConfusableName } from './confusable-names.ts';
import { principalIdentity } from './principal-identity.ts';

/**
 * How an approval tells people apart, from the tenant's `approvals` settings when the call was
 * parked (like its quorum, fixed then):
 * - `same_person_as_creator`: unset (the default), a key minted through the API or console and the
 *   principals that minted it, directly or through a chain of mints (its lineage, kept on the key),
 *   are one person: neither approves the other's calls, and they count once in a quorum. `true`
 *   goes further: principals whose lineages meet (two keys minted by one principal) are one person
 *   too. `false`: only names are compared. Keys the operator makes on the store start no lineage.
 * - `confusable_names: "refuse"`: a principal whose name is confusable (confusable-names.ts) cannot
 *   approve, and its calls are not parked (they answer `denied`). Default `"mark"`: shown marked.
 */
export interface FourEyesRules {
  same_person_as_creator?: boolean;
  confusable_names?: 'mark' | 'refuse';
}

/** A principal as four-eyes sees it: its name and, for a key, the principals it was minted under. */
export interface Person {
  name: string;
  lineage?: readonly string[];
}

/** Whether two principals count as one person under the rules. */
export function samePerson(a: Person, b: Person, rules: FourEyesRules = {}): boolean {
  const [nameA, nameB] = [principalIdentity(a.name), principalIdentity(b.name)];
  if (nameA === nameB) return true;
  if (rules.same_person_as_creator === false) return false;
  const [lineageA, lineageB] = [a, b].map((p) => new Set((p.lineage ?? []).map(principalIdentity)));
  return lineageA.has(nameB) || lineageB.has(nameA) || (rules.same_person_as_creator === true && [...lineageA].some((name) => lineageB.has(name)));
}

/** Whether the rules refuse this name (it cannot approve, and its calls are not parked). */
export const refusedName = (name: string, rules: FourEyesRules = {}) => rules.confusable_names === 'refuse' && isConfusableName(name);
