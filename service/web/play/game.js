// @ts-check
// One round on a fixed list of dice: the tiles, one roll at a time (later rolls are
// never put in the page), the player's choice of tiles, and the moves for the API.
import { uuid } from './api.js';
import { clear, die, h } from './dom.js';
import { loadJSON, saveJSON } from './player.js';
import * as R from './rules.js';
import { _, formatMove, formatNumber, formatPercent, formatScore, ngettext } from './strings.js';

const EDITABLE = 'input, select, textarea, [contenteditable=""], [contenteditable="true"]';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Rules} Rules */
/** @typedef {import('./rules.js').Roll} Roll */
/** @typedef {import('./rules.js').Move} Move */
/**
 * Where a round's hints come from: the `POST /v1/hint` answer for the position (and the
 * roll, [d1, d2] or [d1] for one die, once it is rolled).
 * @typedef {(request: Schemas['HintRequest']) => Promise<Schemas['Hint']>} HintSource
 */
/** @typedef {{moves: Move[], open: number[], score: number, shut: boolean}} RoundEnd */
/** @typedef {{index: number, roll: Roll, count: number, closed: number}} Played a roll of the history */

export class Round {
  /**
   * @param {object} options
   * @param {Rules} options.rules the rules object
   * @param {Roll[]} options.dice the rolls, [d1, d2] each (kept here, shown one at a time)
   * @param {Move[]} [options.moves] moves already played (a saved game)
   * @param {HintSource | null} [options.hint] a Hint button when set
   * @param {(moves: Move[]) => void} [options.onMove] called with the moves after each move
   * @param {(end: RoundEnd) => void} [options.onEnd] called once when the round is over
   * @param {string} options.label what the round is, for screen readers
   */
  constructor({ rules, dice, moves = [], hint = null, onMove = () => {}, onEnd = () => {}, label }) {
    this.rules = R.normalize(rules);
    this.dice = dice;
    this.hint = hint;
    this.onMove = onMove;
    this.onEnd = onEnd;
    this.position = R.startPosition(this.rules);
    /** @type {Move[]} */
    this.moves = [];
    this.index = 0;
    this.count = 2; // dice rolled for the current roll
    /** @type {'start' | 'choose' | 'move' | 'over'} */
    this.phase = 'start';
    this.selected = 0;
    /** @type {number[]} the legal sets of the roll (masks) */
    this.legal = [];
    /** @type {Map<string, Schemas['Hint']>} */
    this.hints = new Map();
    /** @type {Played[]} */
    this.history = [];
    /** @type {HTMLButtonElement | null} the Close button, while tiles are to be picked */
    this.confirmButton = null;
    // The round's parts in the page, made by build() (declared here, for their types).
    /** @type {HTMLElement} */ this.el;
    /** @type {HTMLElement} */ this.rollNumber;
    /** @type {HTMLElement} */ this.scoreNow;
    /** @type {HTMLElement} */ this.diceBox;
    /** @type {HTMLElement} */ this.rollText;
    /** @type {HTMLButtonElement[]} */ this.tileButtons;
    /** @type {HTMLElement} */ this.tiles;
    /** @type {HTMLElement} */ this.status;
    /** @type {HTMLElement} */ this.live;
    /** @type {HTMLElement} */ this.actions;
    /** @type {HTMLElement} */ this.hintPanel;
    /** @type {HTMLElement} */ this.historyList;
    /** @type {HTMLElement} */ this.keys;
    this.build(label);
    this.resume(moves);
    this.onKey = this.onKey.bind(this);
    document.addEventListener('keydown', this.onKey);
  }

  // After the round is put in the page: the board in view, the focus on its first control.
  focus() {
    const target = this.phase === 'move'
      ? this.tileButtons.find((b) => !b.disabled)
      : this.actions.querySelector('button');
    this.revealBoard();
    target?.focus({ preventScroll: true });
  }

  // Scroll the page as little as it takes to show these parts of the round whole, from
  // the top of the first to the bottom of the last (from the first's top where they are
  // taller than the window): on a phone the dice, tiles and buttons of a roll in view.
  /**
   * @param {HTMLElement} first
   * @param {HTMLElement} [last]
   */
  reveal(first, last = first) {
    if (!this.el.isConnected || first.hidden) return;
    const margin = 8;
    const top = first.getBoundingClientRect().top - margin;
    const bottom = last.getBoundingClientRect().bottom + margin;
    const height = window.innerHeight;
    const delta = top < 0 || bottom - top > height ? top : bottom > height ? bottom - height : 0;
    if (delta) window.scrollBy({ top: delta, left: 0, behavior: 'auto' });
  }

  // What a roll made: its dice, the tiles and the buttons.
  revealBoard() {
    this.reveal(this.rollNumber.parentElement ?? this.el, this.actions.childElementCount ? this.actions : this.status);
  }

  destroy() {
    document.removeEventListener('keydown', this.onKey);
    this.el.remove();
  }

  /** @param {string} label */
  build(label) {
    const n = this.rules.tiles;
    this.rollNumber = h('span', { class: 'roll-number' });
    this.scoreNow = h('span', { class: 'score-now' });
    this.diceBox = h('div', { class: 'dice' });
    this.rollText = h('p', { class: 'roll-text' });
    this.tileButtons = [];
    for (let tile = 1; tile <= n; tile += 1) {
      const button = h('button', { type: 'button', class: 'tile', 'data-tile': tile, onclick: () => this.toggle(tile) },
        h('span', { class: 'tile-face' }, String(tile)));
      this.tileButtons.push(button);
    }
    this.tiles = h('div', { class: 'tiles', role: 'group', 'aria-label': _('Tiles'), 'data-n': n }, this.tileButtons);
    this.status = h('p', { class: 'status' });
    this.live = h('p', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' });
    this.actions = h('div', { class: 'actions' });
    this.hintPanel = h('div', { class: 'hint-panel', hidden: true, 'aria-live': 'polite' });
    this.historyList = h('ol', { class: 'history', 'aria-label': _('Rolls so far') });
    this.keys = h('p', { class: 'keys muted-text' }, this.rules.tiles > 9 ? _('Keys: 1–9 and 0 (for 10) pick a tile, Enter closes them, Esc clears.') : _('Keys: 1–9 pick a tile, Enter closes them, Esc clears.'));
    this.el = h('section', { class: 'round', 'aria-label': label },
      h('div', { class: 'round-head' }, this.rollNumber, this.scoreNow),
      h('div', { class: 'tray' }, this.diceBox, this.rollText),
      this.tiles, this.status, this.live, this.actions, this.hintPanel, this.historyList, this.keys);
  }

  // Replay a saved game's moves, then go on from there (or from the start if they no
  // longer fit these dice).
  /** @param {Move[]} moves */
  resume(moves) {
    const state = moves.length ? R.replay(this.rules, this.dice, moves) : null;
    if (state) {
      moves.forEach((move, index) => {
        const closed = R.maskOf(R.moveTiles(move));
        this.history.push({ index, roll: this.dice[index], count: R.moveDice(move), closed });
      });
      this.moves = moves.map((m) => (Array.isArray(m) ? [...m] : { ...m, tiles: [...m.tiles] }));
      this.position = state.open;
      this.index = state.index;
    }
    this.renderHistory();
    if (state?.ended) {
      // It ended on a one-die roll that could not be played: that roll stays shown.
      this.index = moves.length - 1;
      this.count = 1;
      this.finish();
      return;
    }
    this.next();
  }

  get roll() {
    return this.dice[this.index];
  }

  get total() {
    return R.rollTotal(this.roll, this.count);
  }

  next() {
    this.selected = 0;
    this.hintPanel.hidden = true;
    if (this.position === 0 || this.index >= this.dice.length) {
      this.finish();
      return;
    }
    const choices = R.diceChoices(this.rules, this.position);
    if (choices.length > 1) {
      this.phase = 'choose';
      this.legal = [];
      this.render();
      this.say(_('Roll {roll}: roll one die or two?', { roll: this.index + 1 }));
      this.revealBoard();
      this.keepFocus(this.actions.querySelector('button'));
      return;
    }
    this.rollDice(choices[0]); // the one count the rules allow here (one die, where it is a must)
  }

  /** @param {number} count */
  rollDice(count) {
    if (this.phase === 'over') return;
    this.count = count;
    this.phase = 'move';
    this.selected = 0;
    this.hintPanel.hidden = true;
    this.legal = R.legalSets(this.rules, this.position, this.roll, count);
    const roll = this.roll;
    const spoken = count === 2
      ? _('Roll {roll}: {d1} and {d2}, total {total}.', { roll: this.index + 1, d1: roll[0], d2: roll[1], total: this.total })
      : _('Roll {roll}: one die, {d1}.', { roll: this.index + 1, d1: roll[0] });
    if (!this.legal.length) {
      if (count === 1) this.moves.push({ dice: 1, tiles: [] });
      this.history.push({ index: this.index, roll, count, closed: 0 });
      this.renderHistory();
      this.onMove(this.moves);
      this.finish(spoken);
      return;
    }
    this.render(true);
    const ask = _('Close tiles that add up to {total}.', { total: this.total });
    this.say(`${spoken} ${ask}`);
    this.revealBoard();
    this.keepFocus(this.tileButtons.find((b) => !b.disabled));
  }

  /** @param {number} tile */
  toggle(tile) {
    if (this.phase !== 'move') return;
    const bit = 1 << (tile - 1);
    if (!(this.position & bit)) return;
    if (this.selected & bit) {
      this.selected ^= bit;
    } else {
      const wanted = this.selected | bit;
      if (this.legal.some((m) => (m & wanted) === wanted)) this.selected = wanted;
      else if (this.legal.some((m) => m & bit)) this.selected = bit; // start again from this tile
      else return;
    }
    this.render();
    if (this.legal.includes(this.selected)) {
      const tiles = R.tilesOf(this.selected);
      this.say(ngettext('Tile {tiles} selected. Press Enter to close it.', 'Tiles {tiles} selected. Press Enter to close them.', tiles.length, { tiles: formatMove(tiles) }));
      this.reveal(this.tiles, this.actions); // the Close button it enabled
    }
  }

  /** @param {number} mask */
  select(mask) {
    if (this.phase !== 'move' || !this.legal.includes(mask)) return;
    this.selected = mask;
    this.render();
    this.confirmButton?.focus();
  }

  confirm() {
    if (this.phase !== 'move' || !this.legal.includes(this.selected)) return;
    const closed = this.selected;
    this.moves.push(R.moveOut(closed, this.count));
    this.history.push({ index: this.index, roll: this.roll, count: this.count, closed });
    this.position ^= closed;
    this.index += 1;
    this.renderHistory();
    this.onMove(this.moves);
    this.say(_('Closed {tiles}.', { tiles: formatMove(R.tilesOf(closed)) }));
    this.next();
  }

  finish(spoken = '') {
    this.phase = 'over';
    this.selected = 0;
    const open = R.tilesOf(this.position);
    const finalScore = R.score(this.rules, this.position);
    const score = formatScore(finalScore, this.rules.scoring);
    this.render();
    const must = R.tileToClose(this.rules, this.position);
    const message = this.position === 0
      ? _('You shut the box!')
      : this.roll && R.stopsTurn(this.rules, this.roll, this.count)
        ? _('A total of {total} ends the turn. Score {score}.', { total: this.total, score })
        : must !== undefined
          ? _('The first move must close tile {tile}, and this roll cannot: the turn is over. Score {score}.', { tile: must, score })
          : this.count === 2
        ? _('No open tiles make {total}: the turn is over. Score {score}.', { total: this.total, score })
        : _('No open tile makes {total}: the turn is over. Score {score}.', { total: this.total, score });
    this.status.textContent = message;
    this.reveal(this.tiles, this.status);
    this.say(`${spoken} ${message}`.trim());
    const end = { moves: this.moves, open, score: finalScore, shut: this.position === 0 };
    queueMicrotask(() => this.onEnd(end)); // after the constructor, for a saved game that had ended
  }

  /** @param {string} text */
  say(text) {
    // Cleared first, so that the same sentence twice is announced twice.
    this.live.textContent = '';
    requestAnimationFrame(() => {
      this.live.textContent = text;
    });
  }

  // Move the focus to this element when the focus was lost (its button disabled or
  // removed) or is still on a button of the round that is no longer of use.
  /** @param {HTMLElement | null | undefined} element */
  keepFocus(element) {
    if (!element || !this.el.isConnected) return;
    const active = document.activeElement;
    const lost = !active || active === document.body || !active.isConnected || active.matches(':disabled');
    if (lost || (this.el.contains(active) && !active.classList.contains('tile'))) element.focus({ preventScroll: true });
  }

  /** @param {boolean} [newRoll] the dice were just rolled: shown rolling */
  render(newRoll = false) {
    const { rules, position } = this;
    this.el.dataset.phase = this.phase; // start, choose, move or over: for tests and styles
    const rolled = this.phase === 'move' || (this.phase === 'over' && this.index < this.dice.length && position !== 0);
    this.rollNumber.textContent = this.phase === 'over' && position === 0
      ? _('Box shut')
      : _('Roll {roll}', { roll: this.index + 1 });
    this.scoreNow.textContent = _('Score now {score}', { score: formatScore(R.score(rules, position), rules.scoring) });

    // The dice: the current roll only.
    this.rollText.classList.remove('quiet');
    if (rolled) {
      const roll = this.roll;
      clear(this.diceBox, die(roll[0], newRoll ? 'rolling' : ''), this.count === 2 ? die(roll[1], newRoll ? 'rolling' : '') : null);
      this.rollText.textContent = this.count === 2
        ? `${roll[0]} + ${roll[1]} = ${this.total}`
        : _('One die: {d1}', { d1: roll[0] });
    } else if (this.phase === 'choose') {
      clear(this.diceBox, die(0), die(0));
      this.rollText.textContent = _('You may roll one die or two.');
      this.rollText.classList.add('quiet');
    } else {
      clear(this.diceBox);
      this.rollText.textContent = '';
    }

    // The tiles: open, closed, selected, of no use on this roll (muted, disabled), or of
    // use but not with the tiles picked (unfit: a tap starts a new pick from it).
    const usable = this.phase === 'move' ? this.legal.reduce((a, m) => a | m, 0) : 0;
    /** @param {number} bit */
    const addable = (bit) => {
      const wanted = this.selected | bit;
      return this.legal.some((m) => (m & wanted) === wanted);
    };
    for (const button of this.tileButtons) {
      const tile = Number(button.dataset.tile);
      const bit = 1 << (tile - 1);
      const open = Boolean(position & bit);
      const selected = Boolean(this.selected & bit);
      const canUse = this.phase === 'move' && open && Boolean(usable & bit);
      const fits = selected || !this.selected || addable(bit);
      button.classList.toggle('closed', !open);
      button.classList.toggle('selected', selected);
      button.classList.toggle('muted', open && !canUse && this.phase !== 'over');
      button.classList.toggle('left-open', open && this.phase === 'over');
      button.classList.toggle('unfit', canUse && !fits);
      button.disabled = !canUse;
      button.setAttribute('aria-pressed', String(selected));
      button.setAttribute('aria-label', !open
        ? _('Tile {tile}, closed', { tile })
        : !canUse
          ? _('Tile {tile}, no use on this roll', { tile })
          : fits ? _('Tile {tile}', { tile }) : _('Tile {tile}, does not go with the tiles picked', { tile }));
    }

    // The status line and the buttons.
    if (this.phase === 'move') {
      const sum = R.tilesOf(this.selected).reduce((a, b) => a + b, 0);
      this.status.textContent = this.selected
        ? this.legal.includes(this.selected)
          ? _('Close {tiles} for {total}?', { tiles: formatMove(R.tilesOf(this.selected)), total: this.total })
          : _('Selected {sum} of {total}: pick more.', { sum, total: this.total })
        : _('Pick tiles that add up to {total}.', { total: this.total });
    } else if (this.phase === 'choose') {
      this.status.textContent = _('Choose how many dice to roll (keys 1 and 2).');
    }
    this.renderActions();
  }

  renderActions() {
    this.confirmButton = null;
    if (this.phase === 'move') {
      const ready = this.legal.includes(this.selected);
      this.confirmButton = h('button', { type: 'button', class: 'primary', disabled: !ready, onclick: () => this.confirm() },
        ready ? _('Close {tiles}', { tiles: formatMove(R.tilesOf(this.selected)) }) : _('Close tiles'));
      clear(this.actions,
        this.confirmButton,
        h('button', { type: 'button', class: 'secondary', disabled: !this.selected, onclick: () => { this.selected = 0; this.render(); this.keepFocus(this.tileButtons.find((b) => !b.disabled)); } }, _('Clear')),
        this.hint ? h('button', { type: 'button', class: 'secondary hint-button', onclick: () => this.showHint() }, _('Hint')) : null);
    } else if (this.phase === 'choose') {
      clear(this.actions,
        h('button', { type: 'button', class: 'primary', onclick: () => this.rollDice(2) }, _('Roll two dice')),
        h('button', { type: 'button', class: 'primary', onclick: () => this.rollDice(1) }, _('Roll one die')),
        this.hint ? h('button', { type: 'button', class: 'secondary hint-button', onclick: () => this.showHint() }, _('Hint')) : null);
    } else {
      clear(this.actions);
    }
  }

  renderHistory() {
    clear(this.historyList, this.history.map(({ index, roll, count, closed }) => h('li', { class: closed ? '' : 'history-stuck' },
      h('span', { class: 'history-roll' }, count === 2 ? `${roll[0]} + ${roll[1]}` : _('{d1} (one die)', { d1: roll[0] })),
      h('span', { class: 'history-arrow', 'aria-hidden': 'true' }, '→'),
      h('span', { class: 'history-move' }, closed ? formatMove(R.tilesOf(closed)) : _('no move')),
      h('span', { class: 'sr-only' }, _('(roll {roll})', { roll: index + 1 })))));
    this.historyList.hidden = this.history.length === 0;
  }

  async showHint() {
    if (!this.hint || this.phase === 'over') return;
    const key = `${this.index}/${this.phase === 'move' ? this.count : 0}`;
    const phase = this.phase;
    this.hintPanel.hidden = false;
    clear(this.hintPanel, h('p', { class: 'muted-text' }, _('Working out the odds…')));
    let answer = this.hints.get(key);
    if (!answer) {
      try {
        const roll = phase === 'move' ? (this.count === 2 ? [...this.roll] : [this.roll[0]]) : undefined;
        answer = await this.hint({ rules: this.rules, open: R.tilesOf(this.position), roll });
        this.hints.set(key, answer);
      } catch (error) {
        clear(this.hintPanel, h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error)));
        return;
      }
    }
    if (this.phase !== phase || `${this.index}/${this.phase === 'move' ? this.count : 0}` !== key) return;
    this.renderHint(answer);
    // The options it made in view with the dice and their total above them (what the
    // options are for), the focus on the best (Enter takes it).
    this.reveal(this.rollNumber.parentElement ?? this.el, this.hintPanel);
    /** @type {HTMLElement | null} */ (this.hintPanel.querySelector('.hint-option.best') ?? this.hintPanel.querySelector('.hint-option'))?.focus({ preventScroll: true });
  }

  // The hint's heading, one level below the heading the round is under (the view's h1,
  // a panel's h2 or h3): never a level skipped.
  hintTitle() {
    let level = 1;
    for (const heading of document.querySelectorAll('h1, h2, h3, h4, h5')) {
      if (this.el.contains(heading) || !heading.getClientRects().length) continue; // its own, or not shown
      if (heading.compareDocumentPosition(this.el) & Node.DOCUMENT_POSITION_FOLLOWING) level = Number(heading.tagName[1]);
    }
    const tag = /** @type {'h2' | 'h3' | 'h4' | 'h5' | 'h6'} */ (`h${Math.min(6, level + 1)}`);
    return h(tag, { class: 'hint-title' }, _('Hint'));
  }

  /** @param {Schemas['Hint']} answer */
  renderHint(answer) {
    /** @param {Schemas['PolicyFigures']} p */
    const figures = (p) => h('span', { class: 'hint-figures' },
      h('span', { class: 'figure' }, _('shut chance {chance}', { chance: formatPercent(p.p_shut * 100) })),
      h('span', { class: 'figure' }, _('expected score {score}', { score: formatScore(p.expected_score, this.rules.scoring, 2) })));
    if (this.phase === 'choose' && answer.dice_choice) {
      const choice = answer.dice_choice;
      /**
       * @param {number} count
       * @param {Schemas['PolicyFigures']} p
       */
      const row = (count, p) => h('li', {},
        h('button', { type: 'button', class: ['hint-option', choice.best === count ? 'best' : ''], onclick: () => this.rollDice(count) },
          h('span', { class: 'hint-tiles' }, count === 1 ? _('Roll one die') : _('Roll two dice')),
          figures(p),
          choice.best === count ? h('span', { class: 'badge' }, _('Best')) : null));
      clear(this.hintPanel, this.hintTitle(),
        h('ol', { class: 'hint-options' }, /** @type {[number, Schemas['PolicyFigures']][]} */ ([[1, choice.one], [2, choice.two]]).sort((a, b) => (a[0] === choice.best ? -1 : b[0] === choice.best ? 1 : 0)).map(([c, p]) => row(c, p))));
      return;
    }
    const best = answer.best ? R.maskOf(answer.best) : null;
    // The rest behind a button: a full 12-tile box has a dozen options, and on a phone
    // more than three push the dice out of view.
    const SHOWN = window.matchMedia('(max-width: 480px)').matches ? 3 : 5;
    const items = answer.options.map((option, i) => {
      const mask = R.maskOf(option.tiles);
      const isBest = mask === best;
      return h('li', { hidden: i >= SHOWN },
        h('button', { type: 'button', class: ['hint-option', isBest ? 'best' : ''], onclick: () => this.select(mask) },
          h('span', { class: 'hint-tiles' }, formatMove(option.tiles)),
          figures(option),
          isBest ? h('span', { class: 'badge' }, _('Best')) : null));
    });
    const more = items.length > SHOWN
      ? h('button', {
        type: 'button',
        class: 'secondary small-button',
        onclick: (/** @type {MouseEvent} */ event) => {
          for (const item of items) item.hidden = false;
          /** @type {HTMLElement} */ (event.currentTarget).remove();
          items[SHOWN].querySelector('button')?.focus();
        },
      }, _('Show {count} more', { count: formatNumber(items.length - SHOWN) }))
      : null;
    clear(this.hintPanel, this.hintTitle(),
      h('p', { class: 'muted-text' }, _('Ranked by the chance to shut the box, then by the expected score.')),
      h('ol', { class: 'hint-options' }, items), more);
  }

  /** @param {KeyboardEvent} event */
  onKey(event) {
    if (this.phase === 'over' || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (!this.el.isConnected || this.el.closest('[hidden]')) return;
    if (event.target instanceof Element && event.target.closest(EDITABLE)) return;
    const key = event.key;
    if (this.phase === 'choose') {
      if (key === '1' || key === '2') {
        event.preventDefault();
        this.rollDice(Number(key));
      } else if ((key === 'h' || key === 'H') && this.hint) {
        event.preventDefault();
        this.showHint();
      }
      return;
    }
    if (/^[0-9]$/.test(key)) {
      const tile = key === '0' ? 10 : Number(key);
      if (tile <= this.rules.tiles) {
        event.preventDefault();
        this.toggle(tile);
        this.tileButtons[tile - 1]?.focus({ preventScroll: true });
      }
    } else if (key === 'Enter' && this.legal.includes(this.selected)) {
      // Enter on a focused button other than a tile presses that button instead.
      const target = event.target;
      if (target instanceof HTMLButtonElement && !target.classList.contains('tile')) return;
      event.preventDefault();
      this.confirm();
    } else if (key === 'Escape' && this.selected) {
      event.preventDefault();
      this.selected = 0;
      this.render();
    } else if ((key === 'h' || key === 'H') && this.hint) {
      event.preventDefault();
      this.showHint();
    }
  }
}

/**
 * A round of an official run (the Daily Dice, a Friend Box) kept across reloads: its moves
 * saved under `storageKey` as they are made, with the Idempotency-Key its run is sent with,
 * so that a reload resumes it and a resent run is the same run. It starts at once when
 * there are moves to resume (or with `autostart`), else from a button.
 * @param {object} options
 * @param {string} options.storageKey where the progress is kept (loadJSON, saveJSON)
 * @param {Rules} options.rules the rules object
 * @param {Roll[]} options.dice the rolls
 * @param {string} options.label what the round is, for screen readers
 * @param {HTMLElement} options.stage where the round (or its start button) is put
 * @param {string} options.startLabel the start button's text
 * @param {(moves: Move[], key: string) => unknown} options.submit sends the run with its
 *   Idempotency-Key, a moment after the end
 * @param {(round: Round) => void} [options.onStart] called with the round when it starts
 * @param {boolean} [options.autostart] start without the button
 */
export function keptRound({ storageKey, rules, dice, label, stage, startLabel, submit, onStart = () => {}, autostart = false }) {
  const saved = loadJSON(storageKey, null);
  const key = saved?.key ?? uuid();
  const start = () => {
    const round = new Round({
      rules,
      dice,
      moves: saved?.moves ?? [],
      label,
      onMove: (moves) => saveJSON(storageKey, { key, moves }),
      onEnd: ({ moves }) => {
        saveJSON(storageKey, { key, moves, ended: true });
        setTimeout(() => submit(moves, key), 900); // a moment to see the last roll
      },
    });
    onStart(round);
    clear(stage, round.el);
    round.focus();
  };
  if (saved?.moves?.length || autostart) start();
  else clear(stage, h('div', { class: 'start-card' }, h('button', { type: 'button', class: 'primary big', onclick: start }, startLabel)));
}
