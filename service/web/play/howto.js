// @ts-check
// How to play, on the Daily Dice before its one official try: the rules in four short
// steps, what "Score now" means, and a practice round on fresh dice that counts for
// nothing. Open until the player has seen it (or has played before); then folded under its
// heading, one tap away. A disclosure (details/summary) in the page rather than a dialog
// over it: read in order by a screen reader, worked by the keyboard as any button, and
// shown from the first paint (no dialog popping up while the dice load).
import { api } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { Round } from './game.js';
import { loadJSON, saveJSON } from './player.js';
import { _ } from './strings.js';
import { errorNote, loading } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */

const SEEN = 'howto.seen'; // on this browser: how to play was read, or the player has played

/**
 * @param {object} options
 * @param {(on: boolean) => void} options.onPractice a practice round begins (true) or ends:
 *   today's start button steps aside meanwhile
 */
export function howToPlay({ onPractice }) {
  const titleId = uniqueId('howto');
  const seen = Boolean(loadJSON(SEEN, false));
  const stage = h('div', { class: 'howto-practice', 'aria-live': 'polite' });
  const practiceButton = h('button', { type: 'button', class: 'primary' }, _('Try a practice round'));
  const doneButton = h('button', { type: 'button', class: 'secondary' }, _('Got it'));
  const el = h('details', { class: 'panel howto', open: !seen },
    h('summary', {}, h('h2', { id: titleId }, _('How to play'))),
    h('ol', { class: 'howto-steps' },
      h('li', {}, _('Roll the dice: their total is the number to make.')),
      h('li', {}, _('Close open tiles that add up to it: for 8, the 8, or 5 and 3, or 4, 3 and 1.')),
      h('li', {}, _('Roll again, until no open tiles add up to the roll: then the turn is over.')),
      h('li', {}, _('Your score is what stays open, added up. Lowest wins; 0 shuts the box.'))),
    h('p', { class: 'howto-score' },
      h('span', { class: 'score-sample', 'aria-hidden': 'true' }, _('Score now {score}', { score: 45 })), ' ',
      _('above the tiles is your score if the turn ended now: the open tiles added up (1 + 2 + … + 9 = 45 at the start). Each tile you close takes its number off.')),
    h('p', { class: 'howto-official' }, _('Today’s dice count once: everyone gets the same rolls and one official try. Practise first on fresh dice: a practice round counts for nothing.')),
    h('div', { class: 'actions' }, practiceButton, doneButton),
    stage);

  /** @type {Round | null} */
  let round = null;
  let practising = false;

  function stop() {
    round?.destroy();
    round = null;
    clear(stage);
    if (practising) {
      practising = false;
      onPractice(false);
    }
  }

  // Seen: folded from now on, on this browser.
  function done() {
    saveJSON(SEEN, true);
    stop();
    el.open = false;
  }

  async function practise() {
    stop();
    practising = true;
    onPractice(true);
    practiceButton.disabled = true;
    clear(stage, loading(_('Rolling the dice…')));
    try {
      /** @type {Schemas['DealOut']} */
      const dealt = await api('POST', '/v1/deals', { body: /** @satisfies {Schemas['NewDeal']} */ ({ rules: {} }) });
      if (!practising) return;
      round = new Round({
        rules: {},
        dice: dealt.dice,
        label: _('Practice round'),
        onEnd: ({ score, shut }) => {
          setTimeout(() => over(score, shut), 900); // a moment to see the last roll
        },
      });
      clear(stage, h('p', { class: 'practice-flag' }, _('Practice: this round counts for nothing.')), round.el);
      round.focus();
    } catch (error) {
      clear(stage, errorNote(error, practise));
    } finally {
      practiceButton.disabled = false;
    }
  }

  /**
   * @param {number} score
   * @param {boolean} shut
   */
  function over(score, shut) {
    if (!practising) return;
    round?.destroy();
    round = null;
    practising = false;
    onPractice(false);
    const said = h('p', { class: 'note', tabindex: '-1' },
      shut ? _('Practice over: you shut the box!') : _('Practice over: you scored {score}.', { score }), ' ',
      _('Today’s official round is below when you are ready.'));
    clear(stage, said,
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: practise }, _('Practise again'))));
    said.focus();
  }

  practiceButton.addEventListener('click', practise);
  doneButton.addEventListener('click', () => {
    done();
    el.querySelector('summary')?.focus();
  });

  return {
    el,
    // Today's official try has begun (or was played): how to play folds away, seen.
    hold: done,
    destroy: stop,
  };
}
