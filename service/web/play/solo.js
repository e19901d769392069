// Solo: any rules variant on dice rolled here, with hints, then the analysis.
import { api } from './api.js';
import { clear, h } from './dom.js';
import { Round } from './game.js';
import { renderResult } from './result.js';
import { _ } from './strings.js';
import { errorNote, loading, rollSequence, rulesForm, rulesSummary, viewHeader } from './ui.js';

export function soloView() {
  const form = rulesForm();
  const startButton = h('button', { type: 'submit', class: 'primary big' }, _('Roll the dice'));
  const setup = h('form', { class: 'panel solo-setup' }, form.el, startButton);
  const stage = h('div', { class: 'stage' });
  const el = h('section', { class: 'view view-solo' }, viewHeader(_('Solo'), _('Practice on fresh dice under any rules, with hints, then see the analysis.')), setup, stage);
  let round = null;

  const hint = ({ rules, open, roll }) => api('POST', '/v1/hint', { body: { rules, open, roll } });

  async function analyse(rules, dice, moves) {
    clear(stage, loading(_('Analysing your round…')));
    try {
      const result = await api('POST', '/v1/analyze', { body: { rules, dice, moves } });
      round?.destroy();
      round = null;
      const view = renderResult(result);
      clear(stage, view, h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'primary', onclick: () => start(rules) }, _('Play again')),
        h('button', { type: 'button', class: 'secondary', onclick: changeRules }, _('Change rules'))));
      view.focusHeading();
    } catch (error) {
      clear(stage, errorNote(error, () => analyse(rules, dice, moves)));
    }
  }

  function changeRules() {
    round?.destroy();
    round = null;
    clear(stage);
    setup.hidden = false;
    startButton.focus();
  }

  function start(rules) {
    round?.destroy();
    setup.hidden = true;
    const dice = rollSequence(rules);
    round = new Round({
      rules,
      dice,
      hint,
      label: _('Solo round'),
      onEnd: ({ moves }) => setTimeout(() => analyse(rules, dice, moves), 700),
    });
    clear(stage,
      h('div', { class: 'rules-bar' },
        h('p', { class: 'rules-line' }, rulesSummary(rules)),
        h('button', { type: 'button', class: 'secondary small-button', onclick: changeRules }, _('Change rules'))),
      round.el);
    round.focus();
  }

  setup.addEventListener('submit', (event) => {
    event.preventDefault();
    start(form.value());
  });

  return {
    el,
    show() {},
    destroy() {
      round?.destroy();
      el.remove();
    },
  };
}
