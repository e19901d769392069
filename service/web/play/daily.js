// @ts-check
// Daily Dice: today's dice in the player's time zone, one official run, its result; and
// the archive, earlier dates played again as practice.
import { api, ApiError } from './api.js';
import { archivePanel } from './archive.js';
import { clear, h } from './dom.js';
import { keptRound } from './game.js';
import { ensurePlayer, refreshPlayer, saveJSON, todayIn } from './player.js';
import { renderResult } from './result.js';
import { statsDetails } from './stats.js';
import { _, formatDate, formatNumber, formatTime, ngettext, zoneName } from './strings.js';
import { errorNote, loading, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Move} Move */

/** @param {string} day YYYY-MM-DD */
function dayNumber(day) {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / 86_400_000;
}

/**
 * What the player should know before playing today: the dates freezes covered since the
 * latest played one (the streak goes on), and when today closes (with the streak at
 * stake, if it is).
 * @param {Schemas['Today']} today
 */
export function todayNotes(today) {
  const { streak } = today;
  const notes = [];
  const missed = streak.last_played && !today.played && streak.current > 0
    ? dayNumber(today.date) - dayNumber(streak.last_played) - 1 : 0;
  if (missed > 0) {
    notes.push(h('p', { class: 'note freeze-note' },
      ngettext('A streak freeze covered {count} missed day: your streak of {streak} goes on.',
        'Streak freezes covered {count} missed days: your streak of {streak} goes on.', missed,
        { streak: formatNumber(streak.current) })));
  }
  const time = formatTime(today.closes_at);
  notes.push(h('p', { class: ['muted-text', 'closes-line', today.at_risk ? 'at-risk' : ''] },
    today.at_risk
      ? ngettext('Today closes {time}: play before then to keep your streak of {count} day.',
        'Today closes {time}: play before then to keep your streak of {count} days.', streak.current, { time })
      : _('Today closes {time}.', { time })));
  return notes;
}

/** @returns {import('./ui.js').View} */
export function dailyView() {
  const dateLine = h('p', { class: 'date-line' });
  // While today is not played: the streak kept by freezes, and when today closes.
  const todayLine = h('div', { class: 'today-line' });
  const body = h('div', { class: 'view-body' });
  const archive = archivePanel({
    stage: body,
    dateLine,
    onStart: () => {
      loads += 1; // a load under way leaves the stage to the practice
      round?.destroy(); // its moves are kept: it resumes when today's round is back
      round = null;
    },
    onBack: () => load(),
  });
  const el = h('section', { class: 'view view-daily', 'aria-labelledby': 'daily-title' },
    viewHeader(_('Daily Dice'), _('The same dice for everyone today. One official try: make it count.')), dateLine, todayLine, body, archive.el, statsDetails());
  /** @type {HTMLElement} */ (el.querySelector('h1')).id = 'daily-title';
  /** @type {import('./game.js').Round | null} */
  let round = null;
  // The date and the player, set by load() before anything else reads them.
  /** @type {string} */
  let day;
  /** @type {import('./player.js').StoredPlayer} */
  let player;
  let loads = 0; // the latest load (or the archive taking the stage): an earlier load stops

  const progressKey = () => `progress.daily.${player.id}.${day}`;

  /**
   * @param {import('./result.js').ShownResult} result
   * @param {string | null} [note]
   */
  function showResult(result, note = null) {
    round?.destroy();
    round = null;
    clear(todayLine);
    const view = renderResult(result, {
      share: () => api('GET', `/v1/daily/${day}/share`, { auth: true }).then((/** @type {Schemas['ShareText']} */ answer) => answer.text),
    });
    clear(body, note ? h('p', { class: 'note' }, note) : null, view,
      h('p', { class: 'muted-text small' }, _('New dice at midnight in {zone}.', { zone: zoneName(player.time_zone) })));
    view.focusHeading();
  }

  /**
   * @param {string} note
   * @param {() => boolean} [current] whether the stage is still this one's when the answers come
   */
  async function showOfficial(note, current = () => true) {
    clear(body, loading());
    /** @type {[Schemas['OfficialRunResult'], Schemas['Streak']]} */
    const [run, streak] = await Promise.all([
      api('GET', `/v1/daily/${day}/runs/me`, { auth: true }),
      api('GET', '/v1/players/me/streak', { auth: true }),
    ]);
    if (current()) showResult({ ...run, streak }, note);
  }

  /**
   * @param {Move[]} moves
   * @param {string} key the run's Idempotency-Key
   */
  async function submit(moves, key) {
    clear(body, loading(_('Checking your run…')));
    try {
      /** @type {Schemas['DailyRunResult']} */
      const result = await api('POST', `/v1/daily/${day}/runs`, { body: /** @satisfies {Schemas['RunSubmission']} */ ({ moves }), auth: true, idempotencyKey: key });
      saveJSON(progressKey(), null);
      showResult(result);
    } catch (error) {
      if (error instanceof ApiError && error.is('already-played')) {
        saveJSON(progressKey(), null);
        await showOfficial(_('You have played today. Here is your official result.')).catch((e) => clear(body, errorNote(e, load)));
        return;
      }
      const again = error instanceof ApiError && (error.status === 0 || error.status >= 500 || error.status === 429);
      const retry = again ? () => submit(moves, key) : null;
      clear(body, errorNote(error, retry ?? load));
    }
  }

  /** @param {Schemas['DailyDice']} daily */
  function play(daily) {
    keptRound({
      storageKey: progressKey(),
      rules: daily.rules,
      dice: daily.dice,
      label: _('Today’s round'),
      stage: body,
      startLabel: _('Start today’s round'),
      submit,
      onStart: (started) => {
        round = started;
      },
    });
  }

  async function load() {
    round?.destroy();
    round = null;
    archive.end();
    loads += 1;
    const mine = loads;
    const current = () => mine === loads;
    clear(body, loading(_('Setting up your player…')));
    try {
      await ensurePlayer();
      archive.refresh();
      if (!current()) return;
      clear(body, loading());
      const { player: fresh, me } = await refreshPlayer();
      if (!current()) return;
      player = fresh;
      day = todayIn(player.time_zone);
      dateLine.textContent = formatDate(day);
      if (me.streak?.played_today) {
        try {
          await showOfficial(_('You have played today. Here is your official result.'), current);
          return;
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 404)) throw error;
        }
      }
      /** @type {[Schemas['DailyDice'], Schemas['Today']]} */
      const [daily, today] = await Promise.all([
        api('GET', `/v1/daily/${day}`),
        api('GET', '/v1/players/me/today', { auth: true }),
      ]);
      if (!current()) return;
      clear(todayLine, ...todayNotes(today));
      play(daily);
    } catch (error) {
      if (current()) clear(body, errorNote(error, load));
    }
  }

  let loaded = false;
  return {
    el,
    show() {
      // Loaded on the first visit, and again once a new day has begun (unless mid-round).
      const stale = player && day && todayIn(player.time_zone) !== day && !round && !archive.active();
      if (!loaded || stale) {
        loaded = true;
        load();
      } else {
        archive.refresh(); // practice runs sent elsewhere meanwhile, and the archive's last date
      }
    },
    destroy() {
      round?.destroy();
      archive.end();
      el.remove();
    },
  };
}
