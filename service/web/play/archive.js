// @ts-check
// The archive, in the Daily Dice view: a date that has ended everywhere played again as
// practice on the Daily Dice's game screen, verified and analysed, told where it would
// have ranked, kept in the player's practice runs, never official (no streak, no rank).
import { api, ApiError } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { keptRound } from './game.js';
import { ensurePlayer, saveJSON } from './player.js';
import { _, formatDate, formatMoment, formatNumber } from './strings.js';
import { errorNote, loading } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Move} Move */

const PAGE = 10; // practice runs a page
// A date has ended everywhere on Earth at its end at UTC-12 and the 15 minutes' grace
// after it: 36 hours and 15 minutes after its start at UTC.
const CLOSES_AFTER = (36 * 60 + 15) * 60 * 1000;

// The latest date (YYYY-MM-DD) that has ended everywhere: the archive's last date.
/** @param {Date} [now] */
export function lastClosedDate(now = new Date()) {
  return new Date(now.getTime() - CLOSES_AFTER).toISOString().slice(0, 10);
}

/**
 * The archive's panel. Its round and result take the view's stage while on.
 * @param {object} options
 * @param {HTMLElement} options.stage where the practice round and its result are put
 * @param {HTMLElement} options.dateLine the view's date line: the practised date while on
 * @param {() => void} options.onStart the stage is about to be taken: the view ends its round
 * @param {() => void} options.onBack back to today's Daily Dice
 */
export function archivePanel({ stage, dateLine, onStart, onBack }) {
  const titleId = uniqueId('archive');
  const dateId = uniqueId('archive-date');
  const dateInput = h('input', { id: dateId, name: 'date', type: 'date', required: true, 'aria-describedby': `${dateId}-help`, class: 'date-input' });
  const dateHelp = h('p', { class: 'field-help', id: `${dateId}-help` });
  const formError = h('div', { class: 'form-error', 'aria-live': 'polite' });
  const playButton = h('button', { type: 'submit', class: 'primary' }, _('Play this date'));
  const form = h('form', { class: 'archive-form', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: dateId }, _('Date')),
      h('div', { class: 'inline' }, dateInput, playButton),
      formError,
      dateHelp));
  const runsTitle = h('h3', { tabindex: '-1' }, _('Your practice runs'));
  const runs = h('div', { class: 'practice-runs', 'aria-live': 'polite' });
  const more = h('button', { type: 'button', class: 'secondary small-button more', hidden: true }, _('More'));
  const el = h('section', { class: 'panel archive', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, _('Play an earlier date')),
    h('p', { class: 'muted-text' }, _('A date that has ended everywhere can be played again as practice: never official, no streak.')),
    form, runsTitle, runs, more);

  /** @type {import('./game.js').Round | null} */
  let round = null;
  let active = false; // a practice round or its result on the stage
  /** @type {Schemas['PracticeListed'][]} */
  let listed = [];

  /** @param {Schemas['PracticeListed']} run */
  function practiceRow(run) {
    const { position, players } = run.would_rank;
    return h('li', { class: 'practice-run', 'data-date': run.date, tabindex: '-1' },
      h('span', { class: 'practice-date' }, formatDate(run.date)),
      h('span', { class: 'practice-score' }, formatNumber(run.score), run.shut ? h('span', { class: 'chip chip-best' }, _('shut')) : null),
      h('span', { class: 'practice-rank' }, players <= 1 ? _('nobody played it officially')
        : _('would have ranked {position} of {players}', { position: formatNumber(position), players: formatNumber(players) })),
      h('span', { class: 'practice-best' }, _('best possible {score}', { score: formatNumber(run.best_possible) })));
  }

  // The player's practice runs, newest date first: the first page, or the next one.
  async function list({ next = false } = {}) {
    const before = next ? listed[listed.length - 1]?.date : undefined;
    if (!next) clear(runs, loading());
    more.disabled = true;
    try {
      await ensurePlayer();
      /** @type {Schemas['PracticeListed'][]} */
      const page = await api('GET', `/v1/players/me/practice?limit=${PAGE}${before ? `&before=${before}` : ''}`, { auth: true });
      listed = next ? [...listed, ...page] : page;
      more.hidden = page.length < PAGE;
      if (!listed.length) {
        clear(runs, h('p', { class: 'muted-text' }, _('No practice runs yet.')));
        return;
      }
      const rows = page.map(practiceRow);
      if (next) runs.querySelector('ol')?.append(...rows);
      else clear(runs, h('ol', { class: 'practice-list' }, rows));
      if (next && more.hidden) rows[0]?.focus(); // the button went: the focus to what it brought
    } catch (error) {
      // A player moved to another device (401): the view above says so, once.
      clear(runs, error instanceof ApiError && error.status === 401 ? null : errorNote(error, () => list()));
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener('click', () => list({ next: true }));

  function back() {
    end();
    onBack();
  }

  /**
   * @param {string} day
   * @param {Move[]} moves
   * @param {string} key the run's Idempotency-Key
   * @param {string} storageKey where its progress is kept
   */
  async function submit(day, moves, key, storageKey) {
    clear(stage, loading(_('Checking your run…')));
    const backButton = h('button', { type: 'button', class: 'secondary', onclick: back }, _('Back to today’s Daily Dice'));
    /** @type {typeof import('./result.js').renderResult} */
    let renderResult;
    try {
      ({ renderResult } = await import('./result.js')); // not a module the first roll waits for
    } catch (error) {
      clear(stage, errorNote(error, () => submit(day, moves, key, storageKey)), h('div', { class: 'actions' }, backButton));
      return;
    }
    try {
      /** @type {Schemas['PracticeRunResult']} */
      const result = await api('POST', `/v1/daily/${day}/practice`, { body: /** @satisfies {Schemas['RunSubmission']} */ ({ moves }), auth: true, idempotencyKey: key });
      saveJSON(storageKey, null);
      round?.destroy();
      round = null;
      const view = renderResult(result, { title: _('Your practice result') }); // the date line names the date
      clear(stage,
        h('p', { class: 'note practice-note' }, _('Practice only: not official, no streak, and the date’s ranks stay as they were.')),
        view,
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', onclick: () => dateInput.focus() }, _('Play another date')),
          backButton));
      view.focusHeading();
      list();
    } catch (error) {
      // A date not closed yet (this browser's clock ahead of the server's), or a failure on
      // the way: the run is kept, to send again. Anything else: it can't be sent.
      const again = error instanceof ApiError && (error.is('date-not-closed') || error.status === 0 || error.status >= 500 || error.status === 429);
      if (!again) saveJSON(storageKey, null);
      // The server names the moment the date closes: written here in the player's zone.
      const closesAt = error instanceof ApiError && error.is('date-not-closed') ? error.problem.closes_at : null;
      const problem = typeof closesAt === 'string'
        ? _('{date} is still open somewhere on Earth; it can be practised once it has closed everywhere, from {time}.', { date: formatDate(day), time: formatMoment(closesAt) })
        : error;
      clear(stage, errorNote(problem, again ? () => submit(day, moves, key, storageKey) : null), h('div', { class: 'actions' }, backButton));
    }
  }

  /** @param {string} day YYYY-MM-DD */
  async function begin(day) {
    clear(formError);
    dateInput.removeAttribute('aria-invalid');
    const latest = lastClosedDate();
    /** @param {string} problem */
    const refuse = (problem) => {
      dateInput.setAttribute('aria-invalid', 'true');
      clear(formError, errorNote(problem));
      dateInput.focus();
    };
    if (!day) {
      refuse(_('Choose a date first.'));
      return;
    }
    if (day > latest) {
      refuse(_('{date} has not ended everywhere yet: the latest date to practise is {latest}.', { date: formatDate(day), latest: formatDate(latest) }));
      return;
    }
    playButton.disabled = true;
    try {
      const player = await ensurePlayer();
      /** @type {Schemas['DailyDice']} */
      const daily = await api('GET', `/v1/daily/${day}`);
      onStart();
      round?.destroy();
      round = null;
      active = true;
      dateLine.textContent = _('Practice: {date}', { date: formatDate(day) });
      dateLine.classList.add('practice-line'); // kept in view while the round scrolls (style.css)
      const storageKey = `progress.practice.${player.id}.${day}`;
      keptRound({
        storageKey,
        rules: daily.rules,
        dice: daily.dice,
        label: _('Practice round of {date}', { date: formatDate(day) }),
        stage,
        startLabel: _('Play this date'),
        autostart: true,
        submit: (moves, key) => submit(day, moves, key, storageKey),
        onStart: (started) => {
          round = started;
        },
      });
    } catch (error) {
      refuse(error instanceof Error ? error.message : String(error));
    } finally {
      playButton.disabled = false;
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    begin(dateInput.value);
  });

  // Ends the practice on the stage (the view takes it back).
  function end() {
    round?.destroy();
    round = null;
    active = false;
    dateLine.classList.remove('practice-line');
  }

  return {
    el,
    // The last date to practise (it moves on at 12:15 UTC) and the practice runs.
    refresh() {
      const latest = lastClosedDate();
      dateInput.max = latest;
      dateHelp.textContent = _('Any date up to {date}: a date can be practised once it has ended everywhere on Earth.', { date: formatDate(latest) });
      list();
    },
    active: () => active,
    end,
    // A date to practise, as if chosen in the form (a link's).
    /** @param {string} day YYYY-MM-DD */
    play(day) {
      dateInput.value = day;
      begin(day);
    },
  };
}
