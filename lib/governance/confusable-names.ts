/**
 * Whether a principal name could pass for another one on screen. Two names that differ only by
 * what principal-identity.ts removes are one person anyway; these are the names that stay
 * different people while looking alike, so the console and Slack mark them and a tenant may
 * refuse them (`approvals.confusable_names: "refuse"`):
 * - `invisible`: a character that shows nothing (Default_Ignorable_Code_Point: joiners, U+034F,
 *   Hangul fillers such as U+3164, variation selectors; format and control characters; U+2800);
 * - `mixed_scripts`: letters of scripts that no one script holds together, per Unicode
 *   Script_Extensions (a Cyrillic "а" in a Latin "alice"); Common and Inherited characters (digits,
 *   punctuation, combining marks) go with any script, and Han goes with Hiragana and Katakana,
 *   Hangul or Bopomofo (UTS #39's augmented script sets);
 * - `unknown_characters`: unassigned or private-use code points, whose look no one can tell.
 * A name written wholly in another script that resembles a Latin one ("аре", all Cyrillic) is not
 * marked: telling that needs UTS #39's confusables table, which does not fit the Worker.
 */
export type NameWarning = 'invisible' | 'mixed_scripts' | 'unknown_characters';

/** Every script's ISO 15924 code as JavaScript's `\p{scx=…}` knows it (Unicode 17), but Common, Inherited and Unknown. */
const SCRIPT_CODES =
  'AdlmAghbAhomArabArmiArmnAvstBaliBamuBassBatkBengBerfBhksBopoBrahBraiBugiBuhdCakmCansCariChamCherChrsCoptCpmnCprtCyrlDevaDiakDogrDsrtDuplEgypElbaElymEthiGaraGeorGlagGongGonmGothGranGrekGujrGukhGuruHangHaniHanoHatrHebrHiraHluwHmngHmnpHungItalJavaKaliKanaKawiKharKhmrKhojKitsKndaKraiKthiLanaLaooLatnLepcLimbLinaLinbLisuLyciLydiMahjMakaMandManiMarcMedfMendMercMeroMiaoMlymModiMongMrooMteiMultMymrNagmNandNarbNbatNewaNkooNshuOgamOlckOnaoOrkhOryaOsgeOsmaOugrPalmPaucPermPhagPhliPhlpPhnxPrtiRjngRohgRunrSamrSarbSaurSgnwShawShrdSiddSidtSindSinhSogdSogoSoraSoyoSundSunuSyloSyrcTagbTakrTaleTaluTamlTangTavtTayoTeluTfngTglgThaaThaiTibtTirhTnsaTodrTolsTotoTutgUgarVaiiVithWaraWchoXpeoXsuxYeziYiiiZanb';

/** UTS #39: a script that writes one language together with Han counts as that language's set. */
const AUGMENTED: Record<string, string[]> = { Hani: ['Jpan', 'Kore', 'Hanb'], Hira: ['Jpan'], Kana: ['Jpan'], Hang: ['Kore'], Bopo: ['Hanb'] };

const INVISIBLE = /[\p{DI}\p{Cf}\p{Cc}\u2800]/u;
const UNKNOWN = /[\p{Cn}\p{Co}\p{Cs}]/u;
const ANY_SCRIPT = /[\p{scx=Zyyy}\p{scx=Zinh}]/u;

let scripts: Array<[string, RegExp]> | undefined;
/** Built when first needed (a non-ASCII name), skipping codes an older engine does not know. */
function scriptTests(): Array<[string, RegExp]> {
  return (scripts ??= (SCRIPT_CODES.match(/..../g) ?? []).flatMap((code): Array<[string, RegExp]> => {
    try {
      return [[code, new RegExp(`\\p{scx=${code}}`, 'u')]];
    } catch {
      return [];
    }
  }));
}

/** The scripts a character may be written in (with UTS #39's augmented sets), among `candidates`. */
function scriptsOf(char: string, candidates: Array<[string, RegExp]>): Set<string> {
  const found = new Set<string>();
  for (const [code, test] of candidates) {
    if (!test.test(char)) continue;
    found.add(code);
    for (const extra of AUGMENTED[code] ?? []) found.add(extra);
  }
  return found;
}

/** Whether no one script holds every character of the name (Common and Inherited fit all). */
function mixesScripts(name: string): boolean {
  let common: Set<string> | undefined;
  for (const char of name) {
    if (ANY_SCRIPT.test(char) || UNKNOWN.test(char) || INVISIBLE.test(char)) continue;
    // After the first letter, only the scripts still in the running need testing.
    const held = common;
    const tests = held ? scriptTests().filter(([code]) => [code, ...(AUGMENTED[code] ?? [])].some((c) => held.has(c))) : scriptTests();
    const own = scriptsOf(char, tests);
    common = held ? new Set([...held].filter((code) => own.has(code))) : own;
    if (common.size === 0) return true;
  }
  return false;
}

const cache = new Map<string, NameWarning[]>();

/** What makes the name confusable; empty for an ordinary name (and at once for printable ASCII). */
export function nameWarnings(name: string): NameWarning[] {
  if (/^[\x20-\x7e]*$/.test(name)) return [];
  const known = cache.get(name);
  if (known) return known;
  const warnings: NameWarning[] = [];
  if (INVISIBLE.test(name)) warnings.push('invisible');
  if (mixesScripts(name)) warnings.push('mixed_scripts');
  if (UNKNOWN.test(name)) warnings.push('unknown_characters');
  if (cache.size >= 1000) cache.clear();
  cache.set(name, warnings);
  return warnings;
}

export const isConfusableName = (name: string) => nameWarnings(name).length > 0;

/** What a warning means, for people (console, Slack). */
export const NAME_WARNING_TEXT: Record<NameWarning, string> = {
  invisible: 'has invisible characters',
  mixed_scripts: 'mixes scripts',
  unknown_characters: 'has unassigned characters',
};

/** What the name has that makes it confusable, in words ("mixes scripts and has invisible characters"). */
export const describeWarnings = (name: string) => nameWarnings(name).map((w) => NAME_WARNING_TEXT[w]).join(' and ');

/** Why a principal with a confusable name cannot approve where the tenant refuses such names. */
export function confusableRefusal(name: string): string {
  return `this tenant refuses approvals from principals whose name is confusable (approvals.confusable_names: "refuse"), and ${JSON.stringify(name)} ${describeWarnings(name)}; approve with a key whose principal name is plain`;
}
