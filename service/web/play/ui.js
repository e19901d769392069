// @ts-check
// Pieces the views share: error and loading notes, the rules form, dice for Solo.
import { api, ApiError } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import {
  MAX_STOP_TOTAL, MAX_TILES, MIN_STOP_TOTAL, MIN_TILES, MOVE_RULES, normalize, ONE_DIE, ONE_DIE_CHOICES, SCORINGS, STANDARD,
  TOTALS,
} from './rules.js';
import { _, language, locale, N_, ngettext } from './strings.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Rules} Rules */
/** @typedef {import('./rules.js').FullRules} FullRules */
/** @typedef {import('./rules.js').Roll} Roll */
/**
 * A view of the page (Daily Dice, Friends, Friend Box, Solo, Account): its element, shown
 * with the route's parameters (a box's code, a friend code, a date), destroyed when the page is
 * built again.
 * @typedef {{el: HTMLElement, show: (params?: {code?: string, series?: string, date?: string}) => void, destroy: () => void}} View
 */

/** @param {string} [text] */
export function loading(text = _('Loading…')) {
  return h('p', { class: 'loading', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), text);
}

// A problem's detail for the player, with a retry button when there is something to retry.
/**
 * @param {unknown} error an ApiError (its message is the problem's detail), or any other
 * @param {(() => unknown) | null} [retry]
 */
export function errorNote(error, retry = null) {
  // The player's token refused: this browser's player was moved to another device (its
  // transfer code claimed there). Trying again can't help; the banner offers what can.
  if (error instanceof ApiError && error.status === 401) {
    return h('div', { class: 'error moved', role: 'alert' },
      h('p', {}, _('This device’s player has moved to another device, so it can’t play here any more.')));
  }
  return h('div', { class: 'error', role: 'alert' },
    h('p', {}, error instanceof Error ? error.message : String(error)),
    retry ? h('button', { type: 'button', class: 'secondary', onclick: retry }, _('Try again')) : null);
}

// The rules' fields, the words for their choices, and a line for each choice (the
// same lines as the server's GET /v1/rules; a choice without one here gets the server's).
/** @type {Record<string, string>} */
const FIELDS = {
  tiles: N_('Tiles'),
  one_die: N_('Rolling one die allowed'),
  one_die_choice: N_('Once it is allowed, one die'),
  move_rule: N_('Moves'),
  total: N_('A roll counts as'),
  scoring: N_('Scoring'),
  first_must_close: N_('First move must close'),
  stop_on_total: N_('Turn ends on a total of'),
};
/** @type {Record<string, Record<string, string>>} */
const WORDS = {
  one_die: { never: N_('never'), high_closed: N_('once 7 and up are shut'), sum_le_6: N_('once 6 or less is open') },
  one_die_choice: { optional: N_('may be rolled'), mandatory: N_('must be rolled') },
  move_rule: {
    any: N_('any tiles'),
    dice_or_sum: N_('dice or sum'),
    single: N_('one tile'),
    die_or_sum: N_('one die is enough'),
    die_or_sum_both: N_('one die, both if open'),
  },
  total: { sum: N_('the sum'), sum_or_difference: N_('sum or difference') },
  scoring: { sum: N_('sum'), count: N_('count'), digits: N_('digits') },
};
// The fields that take a number or nothing: a line for the field itself.
/** @type {Record<string, string>} */
const FIELD_LINES = {
  first_must_close: N_('As in “2 to go”: a first roll that cannot close this tile ends the turn.'),
  stop_on_total: N_('As in “Unlucky 7”: a roll of this total ends the turn before it is played.'),
};
/** @type {Record<string, Record<string, string>>} */
const LINES = {
  one_die: {
    never: N_('Always roll two dice.'),
    high_closed: N_('You may roll one die once every tile of 7 or more is closed.'),
    sum_le_6: N_('You may roll one die once the open tiles add up to 6 or less.'),
  },
  move_rule: {
    any: N_('Close any set of open tiles that adds up to the roll.'),
    dice_or_sum: N_('Close the tile equal to the total, or the two tiles equal to the two dice.'),
    single: N_('Close exactly one tile, equal to either die or to the total.'),
  },
  scoring: {
    sum: N_('Your score is the sum of the open tiles.'),
    count: N_('Your score is the number of open tiles.'),
    digits: N_('The open tiles in ascending order, read as one number (2, 5, 7 is 257).'),
  },
};

/**
 * @param {string} name a field
 * @param {string | number} value
 */
function word(name, value) {
  const message = WORDS[name]?.[value];
  return message ? _(message) : String(value);
}

// A field where a code is typed (a Friend Box's, a friend's, a series'): its label, the
// input with the form's button beside it, the place for its error, and a line of help;
// and onCode(form, act), what a form of it does when sent: an empty code puts the cursor
// back, else act(code) runs with the button disabled, and its error is shown under the
// field (the input emptied when it succeeds).
/**
 * @param {{id: string, label: string, button: string, help: string}} options
 * @returns {{field: HTMLDivElement, input: HTMLInputElement, button: HTMLButtonElement, error: HTMLDivElement,
 *   onCode: (form: HTMLFormElement, act: (code: string) => Promise<unknown>) => void}}
 */
export function codeField({ id, label, button, help }) {
  const input = h('input', {
    id, name: 'code', type: 'text', inputmode: 'text', autocomplete: 'off', autocapitalize: 'characters',
    spellcheck: 'false', maxlength: '64', required: true, 'aria-describedby': `${id}-help`, class: 'code-input',
  });
  const error = h('div', { class: 'form-error', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'primary' }, button);
  const field = h('div', { class: 'field' },
    h('label', { for: id }, label),
    h('div', { class: 'inline' }, input, submit),
    error,
    h('p', { class: 'field-help', id: `${id}-help` }, help));
  /**
   * @param {HTMLFormElement} form
   * @param {(code: string) => Promise<unknown>} act
   */
  const onCode = (form, act) => form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(error);
    input.removeAttribute('aria-invalid');
    const code = input.value.trim();
    if (!code) {
      input.focus();
      return;
    }
    submit.disabled = true;
    try {
      await act(code);
      input.value = '';
    } catch (failure) {
      input.setAttribute('aria-invalid', 'true');
      clear(error, errorNote(failure));
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  return { field, input, button: submit, error, onCode };
}

// A yes-or-no offer (a friend's link, a series' link): "yes" runs accept() with the button
// disabled and, if it fails, shows its error and turns "Not now" into "Close"; "Not now" runs
// decline().
/**
 * @param {string} questionId the id of the sentence that asks
 * @param {string} label what "yes" says
 * @param {() => Promise<unknown>} accept
 * @param {() => void} decline
 * @returns {{yes: HTMLButtonElement, no: HTMLButtonElement, outcome: HTMLDivElement}}
 */
export function offerButtons(questionId, label, accept, decline) {
  const yes = h('button', { type: 'button', class: 'primary', 'aria-describedby': questionId }, label);
  const no = h('button', { type: 'button', class: 'secondary' }, _('Not now'));
  const outcome = h('div', { 'aria-live': 'polite' });
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    clear(outcome, loading());
    try {
      await accept();
    } catch (error) {
      clear(outcome, errorNote(error));
      no.textContent = _('Close');
      yes.disabled = false;
      no.focus();
    }
  });
  no.addEventListener('click', decline);
  return { yes, no, outcome };
}

// A question before a step that can't be undone (a new friend code ends the shared link):
// ask() shows it under the button that asked, its "no" focused (the question read as its
// description), so that neither a slip of the finger nor Enter pressed twice takes the
// step. "Yes" runs act(); "no", or Escape, puts the question away, the focus back on
// the button.
/**
 * @param {{question: string, yes: string, no: string, act: () => unknown}} options
 * @returns {{el: HTMLDivElement, ask: (from: HTMLElement) => void}}
 */
export function confirmStep({ question, yes, no, act }) {
  const questionId = uniqueId('confirm');
  const yesButton = h('button', { type: 'button', class: 'primary', 'aria-describedby': questionId }, yes);
  const noButton = h('button', { type: 'button', class: 'secondary', 'aria-describedby': questionId }, no);
  const el = h('div', { class: 'confirm', role: 'group', 'aria-labelledby': questionId, hidden: true },
    h('p', { id: questionId }, question),
    h('div', { class: 'actions' }, yesButton, noButton));
  /** @type {HTMLElement | null} */
  let asker = null;
  const away = () => {
    el.hidden = true;
    asker?.focus();
  };
  yesButton.addEventListener('click', () => {
    el.hidden = true;
    act();
  });
  noButton.addEventListener('click', away);
  el.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      away();
    }
  });
  return {
    el,
    ask(from) {
      asker = from;
      el.hidden = false;
      noButton.focus();
    },
  };
}

// The rules in plain words, for a summary line: what a move closes, how a roll counts,
// when one die may (or must) be rolled, how the score is counted (PRODUCT.md §2).
/** @type {Record<string, Record<string, string>>} */
const SUMMARY = {
  move_rule: {
    any: N_('any tiles that add up to the roll'),
    dice_or_sum: N_('the tile of the total, or the tiles of both dice'),
    single: N_('one tile: either die or the total'),
    die_or_sum: N_('the tile of the total, of one die or of both dice'),
    die_or_sum_both: N_('the tile of the total, or of the dice: both while both are open'),
  },
  total: { sum_or_difference: N_('a roll counts as its total or its difference') },
  one_die: {
    high_closed: N_('one die allowed once 7 and up are shut'),
    sum_le_6: N_('one die allowed once the open tiles add up to 6 or less'),
  },
  one_die_mandatory: {
    high_closed: N_('only one die once 7 and up are shut'),
    sum_le_6: N_('only one die once the open tiles add up to 6 or less'),
  },
  scoring: {
    sum: N_('scored by adding up the tiles left open'),
    count: N_('scored by how many tiles are left open'),
    digits: N_('scored by the open tiles read as one number'),
  },
};

/**
 * @param {string} name a field of SUMMARY
 * @param {string} value
 */
function phrase(name, value) {
  const message = SUMMARY[name]?.[value];
  return message ? _(message) : null;
}

// "9 tiles · any tiles that add up to the roll · scored by adding up the tiles left open",
// with a few words more for each variant that is not the standard's.
/** @param {Rules} rules */
export function rulesSummary(rules) {
  const r = normalize(rules);
  const parts = [ngettext('{count} tile', '{count} tiles', r.tiles)];
  if (r.start) parts.push(_('starting with {tiles} open', { tiles: new Intl.ListFormat(locale(), { type: 'conjunction' }).format(r.start.map(String)) }));
  parts.push(phrase('move_rule', r.move_rule) ?? word('move_rule', r.move_rule));
  if (r.total !== STANDARD.total) parts.push(phrase('total', r.total) ?? word('total', r.total));
  if (r.one_die !== 'never') parts.push(phrase(r.one_die_choice === 'mandatory' ? 'one_die_mandatory' : 'one_die', r.one_die) ?? word('one_die', r.one_die));
  if (r.first_must_close !== undefined) parts.push(_('the first move must close tile {tile}', { tile: r.first_must_close }));
  if (r.stop_on_total !== undefined) parts.push(_('a roll of {total} ends the turn', { total: r.stop_on_total }));
  parts.push(phrase('scoring', r.scoring) ?? word('scoring', r.scoring));
  return parts.join(' · ');
}

/** @type {Map<string, Promise<Schemas['RulesCatalog'] | null>>} */
const catalogs = new Map();

// GET /v1/rules, once a language: the fields of the rules object and their choices.
/** @returns {Promise<Schemas['RulesCatalog'] | null>} null: the server could not say */
export function rulesCatalog() {
  const key = language();
  let catalog = catalogs.get(key);
  if (!catalog) {
    catalog = api('GET', '/v1/rules').catch(() => null);
    catalogs.set(key, catalog);
  }
  return catalog;
}

/** A form for a rules object: its fields and choices, each choice with its line
 *  (ours, or the server's from GET /v1/rules). Returns {el, value()}.
 *  @param {Rules} [initial]
 *  @returns {{el: HTMLElement, value: () => Rules}} */
export function rulesForm(initial = {}) {
  const rules = normalize(initial);
  /** @type {Record<string, HTMLSelectElement>} */
  const selects = {};
  /** @type {Record<string, HTMLElement>} */
  const helps = {};
  /** @type {Record<string, string>} */
  const serverLines = {};
  /** @param {string} name */
  const describe = (name) => {
    if (!helps[name]) return;
    const value = selects[name].value;
    const line = LINES[name]?.[value] ?? FIELD_LINES[name];
    helps[name].textContent = line ? _(line) : serverLines[`${name}.${value}`] ?? '';
  };
  /**
   * @param {keyof FullRules} name
   * @param {[string | number, string][]} options their values and texts
   * @param {boolean} withHelp a line under the field, for the choice made
   */
  const field = (name, options, withHelp) => {
    const id = uniqueId(`rules-${name}`);
    const select = h('select', { id, name, 'aria-describedby': withHelp ? `${id}-help` : null },
      options.map(([value, text]) => h('option', { value, selected: String(rules[name]) === String(value) }, text)));
    selects[name] = select;
    if (withHelp) {
      helps[name] = h('p', { class: 'field-help', id: `${id}-help` });
      select.addEventListener('change', () => describe(name));
      describe(name);
    }
    return h('div', { class: 'field' }, h('label', { for: id }, _(FIELDS[name])), select, helps[name] ?? null);
  };
  /**
   * @param {keyof FullRules} name
   * @param {readonly string[]} values
   */
  const choices = (name, values) => field(name, values.map((v) => [v, word(name, v)]), true);
  /** @type {[number, string][]} */
  const tiles = [];
  for (let n = MIN_TILES; n <= MAX_TILES; n += 1) tiles.push([n, _('1 to {tiles}', { tiles: n })]);
  /** @type {[string | number, string][]} */
  const firstTile = [['', _('no tile')]];
  for (let t = 1; t <= MAX_TILES; t += 1) firstTile.push([t, String(t)]);
  /** @type {[string | number, string][]} */
  const stopTotal = [['', _('no total')]];
  for (let n = MIN_STOP_TOTAL; n <= MAX_STOP_TOTAL; n += 1) stopTotal.push([n, String(n)]);
  const el = h('div', { class: 'rules-form' },
    field('tiles', tiles, false),
    choices('one_die', ONE_DIE),
    choices('one_die_choice', ONE_DIE_CHOICES),
    choices('move_rule', MOVE_RULES),
    choices('total', TOTALS),
    choices('scoring', SCORINGS),
    field('first_must_close', firstTile, true),
    field('stop_on_total', stopTotal, true));
  // Only a tile of the box can be the first to close.
  const fitFirstTile = () => {
    const n = Number(selects.tiles.value);
    for (const option of selects.first_must_close.options) option.disabled = Number(option.value) > n;
    if (Number(selects.first_must_close.value) > n) selects.first_must_close.value = '';
  };
  selects.tiles.addEventListener('change', fitFirstTile);
  fitFirstTile();
  // The server's catalog: its bounds, and its lines for any choice we have none for.
  rulesCatalog().then((answer) => {
    for (const variant of answer?.fields ?? []) {
      for (const choice of variant.choices ?? []) serverLines[`${variant.field}.${choice.value}`] = choice.description;
      if (variant.field === 'tiles' && variant.minimum && variant.maximum) {
        for (const option of selects.tiles.options) {
          const n = Number(option.value);
          option.disabled = n < variant.minimum || n > variant.maximum;
        }
      }
    }
    for (const name of Object.keys(helps)) describe(name);
  });
  return {
    el,
    value() {
      /** @type {Record<string, string | number>} */
      const chosen = {
        tiles: Number(selects.tiles.value),
        one_die: selects.one_die.value,
        move_rule: selects.move_rule.value,
        scoring: selects.scoring.value,
      };
      // The newer fields only when they are not the standard's (the same rules either way).
      for (const name of /** @type {const} */ (['total', 'one_die_choice'])) if (selects[name].value !== STANDARD[name]) chosen[name] = selects[name].value;
      for (const name of ['first_must_close', 'stop_on_total']) if (selects[name].value) chosen[name] = Number(selects[name].value);
      // Each select offers the values of its field only.
      return /** @type {Rules} */ (chosen);
    },
  };
}

/**
 * @param {string} title
 * @param {string | null} [intro]
 */
export function viewHeader(title, intro) {
  return [h('h1', { class: 'view-title', tabindex: '-1' }, title), intro ? h('p', { class: 'intro' }, intro) : null];
}
