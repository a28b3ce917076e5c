import { INVISIBLE } from './principal-identity.ts';

/**
 * Whether a principal name could pass for another one on screen. Two names that differ only by
 * what principal-identity.ts removes are one person anyway; these are the names that stay
 * different people while looking alike, so the console and Slack mark them and a tenant may
 * refuse them (`approvals.confusable_names: "refuse"`):
 * - `invisible`: a character that shows nothing (Default_Ignorable_Code_Point: joiners, U+034F,
 *   Hangul fillers such as U+3164, variation selectors; format and control characters; U+2800);
 * - `mixed_scripts`: letters that no one script holds together, per Unicode Script_Extensions (a
 *   Cyrillic "а" in a Latin "alice"); Common and Inherited characters (digits, punctuation,
 *   combining marks) go with any script, and Han with Hiragana and Katakana, Hangul or Bopomofo
 *   (UTS #39's augmented script sets);
 * - `uncommon_characters`: a letter of none of the scripts UAX #31 recommends for identifiers
 *   (Table 5: Latin, Greek, Cyrillic, Arabic, Han, Devanagari and 23 more), which UTS #39 restricts
 *   (Cherokee, whose letters pass for Latin ones, among them), or an unassigned or private-use one.
 * A name written wholly in one recommended script that resembles another ("аре", all Cyrillic) is
 * not marked: telling that needs UTS #39's confusables table, which does not fit the Worker.
 */
export type NameWarning = 'invisible' | 'mixed_scripts' | 'uncommon_characters';

/** UAX #31 Table 5's recommended scripts, as ISO 15924 codes for `\p{scx=…}`. */
const RECOMMENDED = 'ArabArmnBengBopoCyrlDevaEthiGeorGrekGujrGuruHangHaniHebrHiraKanaKndaKhmrLaooLatnMlymMymrOryaSinhTamlTeluThaaThaiTibt';
/** UTS #39: a script that writes one language together with Han counts as that language's set. */
const AUGMENTED: Record<string, string[]> = { Hani: ['Jpan', 'Kore', 'Hanb'], Hira: ['Jpan'], Kana: ['Jpan'], Hang: ['Kore'], Bopo: ['Hanb'] };
const ANY_SCRIPT = /[\p{scx=Zyyy}\p{scx=Zinh}]/u;
const INVISIBLE_CHAR = new RegExp(INVISIBLE.source, 'u');

let scripts: Array<[string, RegExp]> | undefined;
const scriptTests = () => (scripts ??= (RECOMMENDED.match(/..../g) ?? []).map((code) => [code, new RegExp(`\\p{scx=${code}}`, 'u')]));

/** The recommended scripts (with UTS #39's augmented sets) a character may be written in. */
function scriptsOf(char: string): Set<string> {
  return new Set(scriptTests().flatMap(([code, test]) => (test.test(char) ? [code, ...(AUGMENTED[code] ?? [])] : [])));
}

function warningsOf(name: string): NameWarning[] {
  const warnings = new Set<NameWarning>();
  let common: Set<string> | undefined;
  for (const char of new Set(name)) {
    if (INVISIBLE_CHAR.test(char)) warnings.add('invisible');
    if (INVISIBLE_CHAR.test(char) || ANY_SCRIPT.test(char)) continue;
    const own = scriptsOf(char);
    if (own.size === 0) warnings.add('uncommon_characters');
    if (own.size === 0) continue;
    common = new Set([...(common ?? own)].filter((code) => own.has(code)));
    if (common.size === 0) warnings.add('mixed_scripts');
  }
  return [...warnings];
}

/** What makes the name confusable; empty for an ordinary name (and at once for printable ASCII, what keys' names are). */
export function nameWarnings(name: string): NameWarning[] {
  return /^[\x20-\x7e]*$/.test(name) ? [] : warningsOf(name);
}

export const isConfusableName = (name: string) => nameWarnings(name).length > 0;

const WORDS: Record<NameWarning, string> = { invisible: 'has invisible characters', mixed_scripts: 'mixes scripts', uncommon_characters: 'has characters of an uncommon script' };

/** What makes the name confusable, in words ("mixes scripts and has invisible characters"). */
export const describeWarnings = (name: string) => nameWarnings(name).map((w) => WORDS[w]).join(' and ');

/** Why a principal with a confusable name cannot approve where the tenant refuses such names. */
export const confusableRefusal = (name: string) => `this tenant refuses approvals from confusable names (approvals.confusable_names), and ${JSON.stringify(name)} ${describeWarnings(name)}`;

/** The name as people should see it: invisible characters spelled out (⟨U+200D⟩), then what makes it confusable ("⚠ mixes scripts"). */
export function shownName(name: string): string {
  const warnings = describeWarnings(name);
  return warnings ? `${name.replace(INVISIBLE, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`)} ⚠ ${warnings}` : name;
}
