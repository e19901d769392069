// Pieces the views share: error and loading notes, the rules form, dice for Solo.
import { api } from './api.js';
import { h, uniqueId } from './dom.js';
import { MAX_TILES, MIN_TILES, MOVE_RULES, normalize, ONE_DIE, SCORINGS } from './rules.js';
import { t } from './strings.js';

export function loading(text = t('common.loading')) {
  return h('p', { class: 'loading', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), text);
}

// A problem's detail for the player, with a retry button when there is something to retry.
export function errorNote(error, retry = null) {
  return h('div', { class: 'error', role: 'alert' },
    h('p', {}, error?.detail ?? error?.message ?? String(error)),
    retry ? h('button', { type: 'button', class: 'secondary', onclick: retry }, t('common.retry')) : null);
}

export function rulesSummary(rules) {
  const r = normalize(rules);
  return t('rules.summary', {
    tiles: r.tiles,
    one_die: t(`rules.value.one_die.${r.one_die}`),
    move_rule: t(`rules.value.move_rule.${r.move_rule}`),
    scoring: t(`rules.value.scoring.${r.scoring}`),
  });
}

let catalog = null;

// GET /v1/rules, once: the fields of the rules object and their choices.
export function rulesCatalog() {
  catalog ??= api('GET', '/v1/rules').catch(() => null);
  return catalog;
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
    const key = `rules.help.${name}.${value}`;
    const text = t(key);
    helps[name].textContent = text === key ? serverLines[`${name}.${value}`] ?? '' : text;
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
    return h('div', { class: 'field' }, h('label', { for: id }, t(`rules.${name}`)), select, helps[name] ?? null);
  };
  const choices = (name, values) => field(name, values.map((v) => [v, t(`rules.value.${name}.${v}`)]), true);
  const tiles = [];
  for (let n = MIN_TILES; n <= MAX_TILES; n += 1) tiles.push([n, t('rules.tilesValue', { n })]);
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
