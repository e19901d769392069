// @ts-check
// The page's words in English, Norwegian (bokmål), Dutch and German. The English text
// is written in the code as gettext messages, found there by `pybabel extract` (domain
// "play", service/locales/play.cfg; scripts/catalogs):
//   _('Roll {roll}', { roll: 3 })                  a sentence, its named values filled in
//   ngettext('{count} roll', '{count} rolls', n)    one that changes with a number ({count})
//   N_('never')                                     marked where it is written, _() later
// The translations come from the service's catalogs (service/locales/<language>/
// LC_MESSAGES/play.po), served as GET /play/messages/<language>.json: {msgid: text},
// a message with plural forms as a list. English needs no catalog, and a message a
// catalog lacks stays English. Numbers and dates are written with Intl for the language.

/** @typedef {'en' | 'nb' | 'nl' | 'de'} Language the page's languages, as the API's */
/** @typedef {{code: Language, name: string, locale: string}} LanguageChoice */
/** @typedef {Record<string, string | number>} Params the named values of a message */

/** @type {readonly LanguageChoice[]} */
export const LANGUAGES = [
  { code: 'en', name: 'English', locale: 'en' },
  { code: 'nb', name: 'Norsk bokmål', locale: 'nb-NO' },
  { code: 'nl', name: 'Nederlands', locale: 'nl-NL' },
  { code: 'de', name: 'Deutsch', locale: 'de-DE' },
];
const DEFAULT = 'en';
const STORED = 'shutbox.language';
// Primary language tags we answer, as the server does: Norwegian and Nynorsk get bokmål.
/** @type {Record<string, Language | undefined>} */
const OURS = { en: 'en', nb: 'nb', nl: 'nl', de: 'de', no: 'nb', nn: 'nb' };

let current = LANGUAGES[0];
/** @type {Record<string, string | string[] | undefined>} a catalog: msgid → text (plural forms: a list) */
let messages = {};

// Our language for a list of language tags (navigator.languages): the first of them we
// speak (de-AT → de, nl-BE → nl, no and nn → nb), else English.
/**
 * @param {readonly string[] | null | undefined} tags
 * @returns {Language}
 */
export function negotiate(tags) {
  for (const tag of tags ?? []) {
    const found = OURS[String(tag).toLowerCase().split(/[-_]/)[0]];
    if (found) return found;
  }
  return DEFAULT;
}

function storedChoice() {
  try {
    return localStorage.getItem(STORED);
  } catch {
    return null;
  }
}

// The language the player chose on this browser (kept in localStorage), or null.
/** @returns {Language | null} */
export function chosenLanguage() {
  const code = storedChoice();
  return LANGUAGES.find((l) => l.code === code)?.code ?? null;
}

/** @param {Language} code */
export function rememberLanguage(code) {
  try {
    localStorage.setItem(STORED, code);
  } catch {
    // private modes without storage: the choice holds until the page is left
  }
}

// The language to start in: the player's choice, else the browser's.
/** @returns {Language} */
export function preferredLanguage() {
  return chosenLanguage() ?? negotiate(navigator.languages?.length ? navigator.languages : [navigator.language]);
}

/** Fetch a language's messages and speak it from now on (`<html lang>` too). When its
 *  catalog cannot be had, the page stays in the language it speaks. Returns the code.
 *  @param {string} code
 *  @returns {Promise<Language>} */
export async function useLanguage(code) {
  const language = LANGUAGES.find((l) => l.code === code) ?? LANGUAGES[0];
  /** @type {typeof messages} */
  let table = {};
  if (language.code !== DEFAULT) {
    const answer = await fetch(`/play/messages/${language.code}.json`, { cache: 'no-cache', credentials: 'same-origin' });
    if (!answer.ok) throw new Error(`the ${language.name} messages: status ${answer.status}`);
    table = await answer.json();
  }
  current = language;
  messages = table;
  document.documentElement.lang = language.code;
  return language.code;
}

// The language's code (en, nb, nl, de): what the API is asked to write in.
/** @returns {Language} */
export function language() {
  return current.code;
}

// The locale for Intl (en, nb-NO, nl-NL, de-DE).
export function locale() {
  return current.locale;
}

/**
 * @param {string} text
 * @param {Params} params
 */
function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// _('Roll {roll}', { roll: 3 }) → "Roll 3" ("Kast 3", "Worp 3", "Wurf 3").
/**
 * @param {string} message
 * @param {Params} [params]
 * @returns {string}
 */
export function _(message, params = {}) {
  const text = messages[message];
  return fill(typeof text === 'string' && text ? text : message, params);
}

// Marks a message for the catalogs where it is written (a table of words); _() it later.
/**
 * @template {string} M
 * @param {M} message
 * @returns {M}
 */
export function N_(message) {
  return message;
}

// All four languages have two forms, for one and for every other count (gettext's
// plural=(n != 1)): Intl's plural category "one" picks the first.
/** @param {number} count */
function pluralIndex(count) {
  return new Intl.PluralRules(locale()).select(count) === 'one' ? 0 : 1;
}

// ngettext('{count} roll', '{count} rolls', 3) → "3 rolls"; {count} is the number
// as the language writes it, other values come in params.
/**
 * @param {string} singular
 * @param {string} plural
 * @param {number} count
 * @param {Params} [params]
 */
export function ngettext(singular, plural, count, params = {}) {
  const index = pluralIndex(count);
  const forms = messages[singular];
  const text = Array.isArray(forms) && forms[index] ? forms[index] : index === 0 ? singular : plural;
  return fill(text, { ...params, count: formatNumber(count) });
}

/**
 * @param {number} value
 * @param {number} [digits] the most fraction digits
 */
export function formatNumber(value, digits = 0) {
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }).format(value);
}

// A score (or a cost, a difference of scores) as its scoring writes it: under digits
// scoring the number the open tiles read (2, 10 → "210", never "2,10" or "127,891,112"),
// whole, without separators; otherwise as formatNumber.
/**
 * @param {number} value
 * @param {string | undefined} scoring the rules' scoring (sum, count, digits)
 * @param {number} [digits] the most fraction digits (an expected score), but none under digits
 */
export function formatScore(value, scoring, digits = 0) {
  if (scoring !== 'digits') return formatNumber(value, digits);
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: 0, useGrouping: false }).format(value);
}

// formatPercent(7.1428) → "7.1%" (a value in percent; "7,1 %" in German).
// Small chances keep two significant digits (0.034%), so that they don't read as 0%.
/** @param {number} percent */
export function formatPercent(percent) {
  const small = percent > 0 && percent < 1;
  const options = small ? { maximumSignificantDigits: 2 } : { maximumFractionDigits: 1 };
  return new Intl.NumberFormat(locale(), { style: 'percent', ...options }).format(percent / 100);
}

// A date "YYYY-MM-DD" written out, e.g. "Monday, November 30, 2026", "mandag 30. november 2026".
/** @param {string} day */
export function formatDate(day) {
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

// The time zone the page writes times in: the player's (player.js says which), until
// there is a player the device's.
/** @type {string | undefined} */
let shownZone;

/** @param {string | null | undefined} zone an IANA time zone; none: the device's */
export function useTimeZone(zone) {
  shownZone = zone || undefined;
}

/** @type {Map<string, Intl.DateTimeFormat | null>} a zone's offset formatter; null: a zone Intl doesn't know */
const offsetFormats = new Map();

/** @param {string} zone */
function offsetFormat(zone) {
  let format = offsetFormats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' });
    } catch {
      format = null;
    }
    offsetFormats.set(zone, format);
  }
  return format;
}

/**
 * A zone Intl knows, else UTC (a zone the server knows and this browser doesn't).
 * @param {string | undefined} zone
 */
function knownZone(zone) {
  if (!zone) return undefined;
  return offsetFormat(zone) ? zone : 'UTC';
}

// A zone's offset from UTC at a moment, in minutes (Europe/Oslo in winter: 60).
/**
 * @param {string} zone
 * @param {Date} [at]
 */
export function zoneOffset(zone, at = new Date()) {
  const name = offsetFormat(zone)?.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const found = name.match(/([+-])(\d{1,2})(?::(\d{2}))?$/); // "GMT+5:30", "GMT-3"; "GMT" is 0
  return found ? (found[1] === '-' ? -1 : 1) * (Number(found[2]) * 60 + Number(found[3] ?? 0)) : 0;
}

// An offset written "UTC+1", "UTC+5:30", "UTC-3"; 0 is "UTC".
/** @param {number} minutes */
export function formatOffset(minutes) {
  if (!minutes) return 'UTC';
  const size = Math.abs(minutes);
  const rest = size % 60;
  return `UTC${minutes < 0 ? '-' : '+'}${Math.floor(size / 60)}${rest ? `:${String(rest).padStart(2, '0')}` : ''}`;
}

// A zone's place: the last part of its IANA name ("America/Argentina/Buenos_Aires":
// "Buenos Aires"); null for a zone of no place (UTC, Etc/GMT+5): its offset names it.
/** @param {string} zone */
export function zoneCity(zone) {
  if (!zone.includes('/') || zone.startsWith('Etc/')) return null;
  return /** @type {string} */ (zone.split('/').pop()).replaceAll('_', ' ');
}

// A zone as the page names it: its city and its offset now, "Oslo (UTC+1)"; "UTC".
/**
 * @param {string} zone
 * @param {Date} [at] the moment its offset is taken at
 */
export function zoneName(zone, at = new Date()) {
  const city = zoneCity(zone);
  if (knownZone(zone) !== zone) return city ?? zone; // its offset unknown to this browser
  const offset = formatOffset(zoneOffset(zone, at));
  return city ? _('{city} ({offset})', { city, offset }) : offset;
}

// A date and time in the player's zone (or the one given), the language's way:
// "December 2, 2026 at 6:03 PM", "2. Dezember 2026 um 18:03", "2. desember 2026 kl. 18:03".
/**
 * @param {string | Date} when a date and time (RFC 3339), or a Date
 * @param {string} [zone] an IANA time zone: the player's unless given
 */
export function formatTime(when, zone = shownZone) {
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'long', timeStyle: 'short', timeZone: knownZone(zone) }).format(new Date(when));
}

// A date and time with its zone named as the picker names it, for a sentence:
// "2. Dezember 2026 um 18:03 (Oslo, UTC+1)" … "(UTC)". The offset is the one at that moment.
/**
 * @param {string | Date} when
 * @param {string} [zone] an IANA time zone: the player's unless given
 */
export function formatMoment(when, zone = shownZone) {
  const at = new Date(when);
  const named = knownZone(zone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone) ?? 'UTC';
  const city = zoneCity(named);
  const offset = formatOffset(zoneOffset(named, at));
  const time = formatTime(at, named);
  return city ? _('{time} ({city}, {offset})', { time, city, offset }) : _('{time} ({offset})', { time, offset });
}

// Tiles of a move, highest first: "9+3".
/** @param {readonly number[]} tiles */
export function formatMove(tiles) {
  return [...tiles].sort((a, b) => b - a).join('+');
}
