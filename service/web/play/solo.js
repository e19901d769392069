// @ts-check
// Solo: any rules variant on dice rolled here, with hints, then the analysis. A round in
// play is kept (its rules, dice and moves) until it ends or the rules change: the page
// built again in another language, or reloaded, resumes it. The rules of the last round
// stay kept for the rules form.
import { api, uuid } from './api.js';
import { clear, h } from './dom.js';
import { Round } from './game.js';
import { ensurePlayer, loadJSON, saveJSON } from './player.js';
import { copyButton, renderResult } from './result.js';
import { _ } from './strings.js';
import { errorNote, loading, rollSequence, rulesForm, rulesSummary, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Rules} Rules */
/** @typedef {import('./rules.js').Roll} Roll */
/** @typedef {import('./rules.js').Move} Move */

const KEPT = 'solo';

/** @returns {import('./ui.js').View} */
export function soloView() {
  const kept = loadJSON(KEPT);
  const form = rulesForm(kept?.rules ?? {}); // the kept round's rules, to change from
  const startButton = h('button', { type: 'submit', class: 'primary big' }, _('Roll the dice'));
  const setup = h('form', { class: 'panel solo-setup' }, form.el, startButton);
  const stage = h('div', { class: 'stage' });
  const el = h('section', { class: 'view view-solo' }, viewHeader(_('Solo'), _('Practice on fresh dice under any rules, with hints, then see the analysis.')), setup, stage);
  /** @type {Round | null} */
  let round = null;

  /** @type {import('./game.js').HintSource} */
  const hint = ({ rules, open, roll }) => api('POST', '/v1/hint', { body: { rules, open, roll } });

  /**
   * @param {Rules} rules
   * @param {Roll[]} dice
   * @param {Move[]} moves
   */
  async function analyse(rules, dice, moves) {
    clear(stage, loading(_('Analysing your round…')));
    try {
      /** @type {Schemas['RunResult']} */
      const result = await api('POST', '/v1/analyze', { body: /** @satisfies {Schemas['AnalyzeRequest']} */ ({ rules, dice, moves }) });
      round?.destroy();
      round = null;
      const view = renderResult(result);
      const made = h('div', { class: 'created made-box', 'aria-live': 'polite' });
      const boxButton = h('button', { type: 'button', class: 'secondary' }, _('Make a Friend Box of this round'));
      boxButton.addEventListener('click', () => makeBox(rules, dice, moves, boxButton, made));
      clear(stage, view, h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'primary', onclick: () => start(rules) }, _('Play again')),
        h('button', { type: 'button', class: 'secondary', onclick: changeRules }, _('Change rules')),
        boxButton), made);
      view.focusHeading();
    } catch (error) {
      clear(stage, errorNote(error, () => analyse(rules, dice, moves)));
    }
  }

  // A Friend Box of the round just played, that run being the owner's: its code to share.
  /**
   * @param {Rules} rules
   * @param {Roll[]} dice
   * @param {Move[]} moves
   * @param {HTMLButtonElement} button
   * @param {HTMLElement} into
   */
  async function makeBox(rules, dice, moves, button, into) {
    button.disabled = true;
    clear(into, loading());
    try {
      await ensurePlayer();
      /** @type {Schemas['CreatedBox']} */
      const box = await api('POST', '/v1/boxes', {
        body: /** @satisfies {Schemas['NewBox']} */ ({ rules, from_run: { dice, moves } }), auth: true, idempotencyKey: uuid(),
      });
      const link = `${location.origin}/play#box=${encodeURIComponent(box.display_code)}`;
      const heading = h('h3', { tabindex: '-1' }, _('Your box is ready'));
      clear(into,
        heading,
        h('p', { class: 'box-code', 'data-code': box.display_code }, box.display_code),
        h('p', { class: 'muted-text' }, _('Your round is the owner’s run: share this code or link, and your friends play the same dice against it.')),
        h('p', { class: 'box-link' }, h('a', { href: link }, link)),
        h('div', { class: 'actions' }, copyButton(() => box.display_code, _('Copy code')), copyButton(() => link, _('Copy link'))));
      button.hidden = true; // one box a round
      heading.focus({ preventScroll: true });
      heading.scrollIntoView({ block: 'nearest' });
    } catch (error) {
      clear(into, errorNote(error));
      button.disabled = false;
      button.focus();
    }
  }

  function changeRules() {
    saveJSON(KEPT, { rules: form.value() });
    round?.destroy();
    round = null;
    clear(stage);
    setup.hidden = false;
    startButton.focus();
  }

  /**
   * @param {Rules} rules
   * @param {{dice?: Roll[], moves?: Move[], focus?: boolean}} [options] a kept round's dice
   *   and moves; focus: the round's first control
   */
  function start(rules, { dice = rollSequence(rules), moves = [], focus = true } = {}) {
    round?.destroy();
    setup.hidden = true;
    saveJSON(KEPT, { rules, dice, moves });
    round = new Round({
      rules,
      dice,
      moves,
      hint,
      label: _('Solo round'),
      onMove: (played) => saveJSON(KEPT, { rules, dice, moves: played }),
      onEnd: ({ moves: played }) => {
        saveJSON(KEPT, { rules });
        setTimeout(() => analyse(rules, dice, played), 700);
      },
    });
    clear(stage,
      h('div', { class: 'rules-bar' },
        h('p', { class: 'rules-line' }, rulesSummary(rules)),
        h('button', { type: 'button', class: 'secondary small-button', onclick: changeRules }, _('Change rules'))),
      round.el);
    if (focus) round.focus();
  }

  setup.addEventListener('submit', (event) => {
    event.preventDefault();
    start(form.value());
  });

  if (kept?.rules && Array.isArray(kept.dice) && Array.isArray(kept.moves)) {
    try {
      start(kept.rules, { dice: kept.dice, moves: kept.moves, focus: false });
    } catch (error) {
      console.warn(`the kept Solo round could not be resumed: ${error instanceof Error ? error.message : error}`);
      changeRules();
    }
  }

  return {
    el,
    show() {},
    destroy() {
      round?.destroy();
      el.remove();
    },
  };
}
