// Pieces the views share: error and loading notes, the rules form, dice for Solo.
import { api } from './api.js';
import { h, uniqueId } from './dom.js';
import { MAX_TILES, MIN_TILES, MOVE_RULES, normalize, ONE_DIE, SCORINGS } from './rules.js';
import { _, language, N_ } from './strings.js';

export function loading(text = _('Loading…')) {
  return h('p', { class: 'loading', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), text);
}

// A problem's detail for the player, with a retry button when there is something to retry.
export function errorNote(error, retry = null) {
  return h('div', { class: 'error', role: 'alert' },
    h('p', {}, error?.detail ?? error?.message ?? String(error)),
    retry ? h('button', { type: 'button', class: 'secondary', onclick: retry }, _('Try again')) : null);
}

// The rules' fields, the words for their choices, and a line for each choice (the
// same lines as the server's GET /v1/rules).
const FIELDS = { tiles: N_('Tiles'), one_die: N_('One die'), move_rule: N_('Moves'), scoring: N_('Scoring') };
const WORDS = {
  one_die: { never: N_('never'), high_closed: N_('once 7 and up are shut'), sum_le_6: N_('once 6 or less is open') },
  move_rule: { any: N_('any tiles'), dice_or_sum: N_('dice or sum'), single: N_('one tile') },
  scoring: { sum: N_('sum'), count: N_('count'), digits: N_('digits') },
};
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

function word(name, value) {
  const message = WORDS[name]?.[value];
  return message ? _(message) : String(value);
}

export function rulesSummary(rules) {
  const r = normalize(rules);
  return _('{tiles} tiles · {one_die} · {move_rule} · {scoring}', {
    tiles: r.tiles,
    one_die: word('one_die', r.one_die),
    move_rule: word('move_rule', r.move_rule),
    scoring: word('scoring', r.scoring),
  });
}

const catalogs = new Map();

// GET /v1/rules, once a language: the fields of the rules object and their choices.
export function rulesCatalog() {
  const key = language();
  if (!catalogs.has(key)) catalogs.set(key, api('GET', '/v1/rules').catch(() => null));
  return catalogs.get(key);
}

/** A form for a rules object: its fields and choices, each choice with its line
 *  (ours, or the server's from GET /v1/rules). Returns {el, value()}. */
export function rulesForm(initial = {}) {
  const rules = normalize(initial);
  const selects = {};
  const helps = {};
  const serverLines = {};
  const describe = (name) => {
    if (!helps[name]) return;
    const value = selects[name].value;
    const line = LINES[name]?.[value];
    helps[name].textContent = line ? _(line) : serverLines[`${name}.${value}`] ?? '';
  };
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
  const choices = (name, values) => field(name, values.map((v) => [v, word(name, v)]), true);
  const tiles = [];
  for (let n = MIN_TILES; n <= MAX_TILES; n += 1) tiles.push([n, _('1 to {tiles}', { tiles: n })]);
  const el = h('div', { class: 'rules-form' },
    field('tiles', tiles, false),
    choices('one_die', ONE_DIE),
    choices('move_rule', MOVE_RULES),
    choices('scoring', SCORINGS));
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
      return {
        tiles: Number(selects.tiles.value),
        one_die: selects.one_die.value,
        move_rule: selects.move_rule.value,
        scoring: selects.scoring.value,
      };
    },
  };
}

// One die, uniform over 1..6, from crypto.getRandomValues (rejection sampling).
function randomDie() {
  const byte = new Uint8Array(1);
  for (;;) {
    crypto.getRandomValues(byte);
    if (byte[0] < 252) return (byte[0] % 6) + 1;
  }
}

// The rolls of a Solo round: tiles + 1 pairs.
export function rollSequence(rules) {
  const r = normalize(rules);
  return Array.from({ length: r.tiles + 1 }, () => [randomDie(), randomDie()]);
}

export function viewHeader(title, intro) {
  return [h('h1', { class: 'view-title', tabindex: '-1' }, title), intro ? h('p', { class: 'intro' }, intro) : null];
}
