// @ts-check
// Daily Dice: today's dice in the player's time zone, one official run, its result; and
// the archive, earlier dates played again as practice. A first-time player is shown how
// to play first, with a practice round on fresh dice (howto.js). A shared result's link
// (#daily=DATE) opens that date: the player's own result of it, or its dice to play.
import { api, ApiError } from './api.js';
import { archivePanel, lastClosedDate } from './archive.js';
import { clear, h } from './dom.js';
import { keptRound } from './game.js';
import { howToPlay } from './howto.js';
import { browserTimeZone, ensurePlayer, refreshPlayer, saveJSON, storedPlayer, todayIn } from './player.js';
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

// The link of a date's Daily Dice (a shared result's): the page opens on that date.
/** @param {string} day YYYY-MM-DD */
export function dailyLink(day) {
  return `${location.origin}/play#daily=${day}`;
}

// The player's statistics, folded under the round: stats.js (and result.js it draws
// with) loaded when the panel is opened, not with the first roll.
function statsPanel() {
  const body = h('div', { class: 'stats-body', 'aria-live': 'polite' });
  const details = h('details', { class: 'panel stats-details' },
    h('summary', {}, h('h2', {}, _('Your statistics'))),
    h('p', { class: 'muted-text' }, _('Over your official Daily Dice runs (not boxes, not practice).')),
    body);
  details.addEventListener('toggle', async () => {
    if (!details.open) return;
    const { readStats } = await import('./stats.js');
    readStats(body); // the figures as they are now, each time it is opened
  });
  return details;
}

/** @returns {import('./ui.js').View} */
export function dailyView() {
  // The date shown from the start (as this browser dates today), so nothing moves when
  // the player's own date comes.
  const dateLine = h('p', { class: 'date-line' }, formatDate(todayIn(storedPlayer()?.time_zone ?? browserTimeZone())));
  // While today is not played: the streak kept by freezes, and when today closes.
  const todayLine = h('div', { class: 'today-line' });
  const body = h('div', { class: 'view-body' });
  const officialIntro = _('The same dice for everyone today. One official try: make it count.');
  const [title, intro] = viewHeader(_('Daily Dice'), officialIntro);
  const archive = archivePanel({
    stage: body,
    dateLine,
    onStart: () => {
      loads += 1; // a load under way leaves the stage to the practice
      round?.destroy(); // its moves are kept: it resumes when today's round is back
      round = null;
      howTo.hold();
      clear(todayLine);
      // Nothing of today's official try while an earlier date is practised.
      el.classList.add('practising');
      if (intro) intro.textContent = _('Practice on an earlier date’s dice: not official, no streak, and its ranks stay as they were.');
    },
    onBack: () => load(),
  });
  // How to play: open for a player who has not played yet; its practice round takes the
  // place of today's start button meanwhile.
  const howTo = howToPlay({
    onPractice: (on) => {
      body.hidden = on;
    },
  });
  const el = h('section', { class: 'view view-daily', 'aria-labelledby': 'daily-title' },
    title, intro, howTo.el, dateLine, todayLine, body, archive.el, statsPanel());
  /** @type {HTMLElement} */ (title).id = 'daily-title';
  /** @type {string | null} a date a link asked for (#daily=DATE), until it is shown */
  let wanted = null;
  /** @type {import('./game.js').Round | null} */
  let round = null;
  // The date and the player, set by load() before anything else reads them.
  /** @type {string} */
  let day;
  /** @type {import('./player.js').StoredPlayer} */
  let player;
  let loads = 0; // the latest load (or the archive taking the stage): an earlier load stops
  let loadedOn = ''; // the date in the player's zone at the latest load: a new one reloads

  const progressKey = () => `progress.daily.${player.id}.${day}`;

  /**
   * An official result: its share text with the date's link, and what to play next.
   * @param {import('./result.js').ShownResult} result
   * @param {string | null} [note]
   * @param {string} [date] the run's date: today's unless given
   */
  async function showResult(result, note = null, date = day) {
    // The result's module: not one the first roll waits for (app.js fetches it ahead).
    const { renderResult } = await import('./result.js');
    round?.destroy();
    round = null;
    howTo.hold();
    clear(todayLine);
    todayLine.hidden = true; // no space kept for today's notes above a result
    const view = renderResult(result, {
      share: () => api('GET', `/v1/daily/${date}/share`, { auth: true }).then((/** @type {Schemas['ShareText']} */ answer) => answer.text),
      link: dailyLink(date),
      next: nextSteps(),
    });
    clear(body, note ? h('p', { class: 'note' }, note) : null, view,
      h('p', { class: 'muted-text small' }, _('New dice at midnight in {zone}.', { zone: zoneName(player.time_zone) })));
    view.focusHeading();
    window.dispatchEvent(new CustomEvent('shutbox:ready'));
  }

  // What to do after today's try: a Solo round, a box for a friend, an earlier date.
  function nextSteps() {
    return h('ul', { class: 'next-steps' },
      h('li', {}, h('a', { href: '#solo', class: 'button-link' }, _('Play a Solo round')), ' ', h('span', { class: 'muted-text' }, _('fresh dice, any rules, with hints'))),
      h('li', {}, h('a', { href: '#box', class: 'button-link' }, _('Make a box for a friend')), ' ', h('span', { class: 'muted-text' }, _('your friends play the same dice as you'))),
      h('li', {}, h('a', { href: '#daily', class: 'button-link', onclick: (/** @type {Event} */ event) => {
        event.preventDefault();
        archive.el.scrollIntoView({ block: 'start' });
        /** @type {HTMLElement | null} */ (archive.el.querySelector('input'))?.focus({ preventScroll: true });
      } }, _('Practise an earlier date')), ' ', h('span', { class: 'muted-text' }, _('never official, no streak'))));
  }

  // A date a link named, not today: the player's official result of it, else (a date that
  // has ended everywhere) its dice as practice. False: neither; today's Daily Dice then.
  /**
   * @param {string} date YYYY-MM-DD
   * @param {() => boolean} current
   */
  async function showDate(date, current) {
    try {
      /** @type {Schemas['OfficialRunResult']} */
      const run = await api('GET', `/v1/daily/${date}/runs/me`, { auth: true });
      if (current()) {
        dateLine.textContent = formatDate(date);
        await showResult(run, _('Your official result of {date}.', { date: formatDate(date) }), date);
        // The tab's link is this address (#daily): today is a button away.
        body.firstElementChild?.after(h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'secondary', onclick: () => load() }, _('Back to today’s Daily Dice'))));
      }
      return true;
    } catch (error) {
      if (!(error instanceof ApiError && (error.status === 404 || error.status === 400))) throw error;
    }
    if (date > lastClosedDate() || !current()) return false;
    archive.play(date);
    return true;
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
    if (current()) await showResult({ ...run, streak }, note);
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
      await showResult(result);
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
        howTo.hold(); // the official try has begun: how to play folds away
      },
    });
  }

  // Today's Daily Dice: its round, or the result once played. The requests that don't
  // wait for each other go side by side: today's dice (as this browser dates today: a new
  // player's zone is this browser's) with the player's creation, then the player's today
  // (its date as the server has it, played or not) with the stored player's refresh. A
  // new player has played nothing: their round is offered with the dice, their today's
  // notes (when it closes) put in the space kept for them when they come.
  async function load() {
    round?.destroy();
    round = null;
    archive.end();
    el.classList.remove('practising');
    todayLine.hidden = false;
    if (intro) intro.textContent = officialIntro;
    loads += 1;
    const mine = loads;
    const current = () => mine === loads;
    const known = storedPlayer();
    const guess = todayIn(known?.time_zone ?? browserTimeZone());
    /** @type {Promise<Schemas['DailyDice']>} */
    const early = api('GET', `/v1/daily/${guess}`);
    early.catch(() => {}); // a failure shows when it is awaited, below
    clear(body, loading(known ? _('Loading…') : _('Setting up your player…')));
    try {
      player = await ensurePlayer();
      loadedOn = todayIn(player.time_zone);
      archive.refresh();
      if (!current()) return;
      /** @type {Promise<Schemas['Today']>} */
      const asked = api('GET', '/v1/players/me/today', { auth: true });
      if (!known && !wanted && todayIn(player.time_zone) === guess) {
        const noted = asked.catch(() => null); // without it, only today's notes are missing
        day = guess;
        const daily = await early;
        if (!current()) return;
        play(daily);
        window.dispatchEvent(new CustomEvent('shutbox:ready'));
        const today = await noted;
        if (today && current()) clear(todayLine, ...todayNotes(today));
        return;
      }
      /** @type {[Schemas['Today'], {player: import('./player.js').StoredPlayer} | null]} */
      const [today, refreshed] = await Promise.all([
        asked,
        known ? refreshPlayer() : null, // its name and zone, changed on another device
      ]);
      if (!current()) return;
      if (refreshed) {
        player = refreshed.player;
        loadedOn = todayIn(player.time_zone);
      }
      if (today.played || today.streak.best > 0) howTo.hold(); // played before: knows how
      day = today.date;
      dateLine.textContent = formatDate(day);
      const link = wanted;
      wanted = null;
      if (link && link !== day) {
        history.replaceState(null, '', '#daily'); // shown once: Back to today is today
        if (await showDate(link, current)) return;
        if (!current()) return;
        dateLine.textContent = formatDate(day);
      }
      if (today.played) {
        try {
          await showOfficial(_('You have played today. Here is your official result.'), current);
          return;
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 404)) throw error;
        }
      }
      /** @type {Schemas['DailyDice']} */
      const daily = day === guess ? await early : await api('GET', `/v1/daily/${day}`);
      if (!current()) return;
      clear(todayLine, ...todayNotes(today));
      play(daily);
      window.dispatchEvent(new CustomEvent('shutbox:ready'));
    } catch (error) {
      if (current()) clear(body, errorNote(error, load));
    }
  }

  let loaded = false;
  return {
    el,
    show({ date } = {}) {
      // Loaded on the first visit, and again once a new day has begun (unless mid-round),
      // or when a link names a date.
      const stale = player && loadedOn && todayIn(player.time_zone) !== loadedOn && !round && !archive.active();
      if (date) wanted = date;
      if (!loaded || stale || (date && !round)) {
        loaded = true;
        load();
      } else {
        archive.refresh(); // practice runs sent elsewhere meanwhile, and the archive's last date
      }
    },
    destroy() {
      round?.destroy();
      howTo.destroy();
      archive.end();
      el.remove();
    },
  };
}
