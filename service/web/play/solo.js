// @ts-check
// Solo: any rules variant on dice the service deals (POST /v1/deals: the only dice whose
// analysis knows the later rolls, PRODUCT.md §6b), with hints, then the analysis. A round
// in play is kept (its rules, deal, dice, moves and hints taken) until it ends or the rules
// change: the page built again in another language, or reloaded, resumes the same deal.
// The rules of the last round stay kept for the rules form.
import { api, uuid } from './api.js';
import { showBoxCard } from './box.js';
import { clear, h } from './dom.js';
import { Round } from './game.js';
import { ensurePlayer, loadJSON, saveJSON } from './player.js';
import { renderResult } from './result.js';
import { _ } from './strings.js';
import { errorNote, loading, rulesForm, rulesSummary, viewHeader } from './ui.js';

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
  // "Roll the dice" first, on the rules said in one line; the variants folded under it.
  const rulesNote = h('span', { class: 'summary-note' });
  const noteRules = () => {
    rulesNote.textContent = rulesSummary(form.value());
  };
  noteRules();
  form.el.addEventListener('change', noteRules);
  const variants = h('details', { class: 'rules-details' }, h('summary', {}, _('Rules'), rulesNote), form.el);
  const setup = h('form', { class: 'panel solo-setup' }, h('div', { class: 'actions' }, startButton), variants);
  const stage = h('div', { class: 'stage' });
  const el = h('section', { class: 'view view-solo' }, viewHeader(_('Solo'), _('Practice on fresh dice under any rules, with hints, then see the analysis.')), setup, stage);
  /** @type {Round | null} */
  let round = null;

  /**
   * A round on a deal: its rules, the deal's token and dice, the moves played and the
   * hints taken so far (kept as it goes, to resume).
   * @typedef {{rules: Rules, deal: string, dice: Roll[], moves: Move[], hints: number}} Dealt
   */

  /**
   * @param {Dealt} dealt
   * @param {Move[]} moves
   */
  async function analyse(dealt, moves) {
    clear(stage, loading(_('Analysing your round…')));
    try {
      /** @type {Schemas['RunResult']} */
      const result = await api('POST', '/v1/analyze', { body: /** @satisfies {Schemas['AnalyzeRequest']} */ ({ deal: dealt.deal, moves }) });
      round?.destroy();
      round = null;
      const view = renderResult(result);
      const made = h('div', { class: 'created made-box', 'aria-live': 'polite' });
      const boxButton = h('button', { type: 'button', class: 'secondary' }, _('Make a Friend Box of this round'));
      boxButton.addEventListener('click', () => makeBox(dealt, moves, boxButton, made));
      clear(stage, view, h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'primary', onclick: () => start(dealt.rules) }, _('Play again')),
        h('button', { type: 'button', class: 'secondary', onclick: changeRules }, _('Change rules')),
        boxButton), made);
      view.focusHeading();
    } catch (error) {
      clear(stage, errorNote(error, () => analyse(dealt, moves)));
    }
  }

  // A Friend Box of the round just played, that run being the owner's (with the hints
  // taken, which its target shows): its code to share.
  /**
   * @param {Dealt} dealt
   * @param {Move[]} moves
   * @param {HTMLButtonElement} button
   * @param {HTMLElement} into
   */
  async function makeBox(dealt, moves, button, into) {
    button.disabled = true;
    clear(into, loading());
    try {
      await ensurePlayer();
      /** @type {Schemas['CreatedBox']} */
      const box = await api('POST', '/v1/boxes', {
        body: /** @satisfies {Schemas['NewBox']} */ ({ from_run: { deal: dealt.deal, moves, hints_used: dealt.hints } }), auth: true, idempotencyKey: uuid(),
      });
      button.hidden = true; // one box a round
      showBoxCard(into, box, _('Your round is the owner’s run: share this code or link, and your friends play the same dice against it.'));
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
    variants.open = true; // asked for: the rules to change, open
    startButton.focus();
  }

  // A new round: the service deals its dice (one request before the first roll).
  /** @param {Rules} rules */
  async function start(rules) {
    round?.destroy();
    round = null;
    setup.hidden = true;
    clear(stage, loading(_('Rolling the dice…')));
    try {
      /** @type {Schemas['DealOut']} */
      const dealt = await api('POST', '/v1/deals', { body: /** @satisfies {Schemas['NewDeal']} */ ({ rules }) });
      play({ rules, deal: dealt.deal, dice: dealt.dice, moves: [], hints: 0 });
    } catch (error) {
      clear(stage, errorNote(error, () => start(rules)));
    }
  }

  /**
   * @param {Dealt} dealt a new round, or a kept one to resume
   * @param {boolean} [focus] the round's first control
   */
  function play(dealt, focus = true) {
    round?.destroy();
    setup.hidden = true;
    const { rules, dice } = dealt;
    saveJSON(KEPT, dealt);
    /** @type {import('./game.js').HintSource} */
    const hint = async ({ open, roll }) => {
      const answer = await api('POST', '/v1/hint', { body: { rules, open, roll } });
      dealt.hints += 1;
      saveJSON(KEPT, dealt);
      return answer;
    };
    round = new Round({
      rules,
      dice,
      moves: dealt.moves,
      hint,
      label: _('Solo round'),
      onMove: (played) => {
        dealt.moves = played;
        saveJSON(KEPT, dealt);
      },
      onEnd: ({ moves: played }) => {
        saveJSON(KEPT, { rules });
        setTimeout(() => analyse(dealt, played), 700);
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

  // A round kept from before deals (no deal) is not resumed: its dice were the page's own.
  if (kept?.rules && typeof kept.deal === 'string' && Array.isArray(kept.dice) && Array.isArray(kept.moves)) {
    try {
      play({ rules: kept.rules, deal: kept.deal, dice: kept.dice, moves: kept.moves, hints: Number(kept.hints) || 0 }, false);
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
