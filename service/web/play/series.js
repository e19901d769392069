// @ts-check
// Series, in the Friends view: a game night over several rounds behind a code. Make one
// (its format, whether shutting the box wins at once, computer seats, its rules), share
// its code or link (#series=CODE, which offers to join), or join by typing a code; then
// the standings (a round's scores shown once the player has played it, "—" until then)
// and the player's next round, played on the Daily Dice's game screen, its result and the
// standings again. The series last opened on this browser is opened again. A player
// without a name is asked for one on making or joining a series; the maker's seat
// (the first) is marked. A series' link shows the series first (who made it, its format,
// who sits at it: its invitation) and offers to join; the player's own series are listed
// (newest first, on any device), each opened with a tap.
import { askName } from './account.js';
import { api, ApiError, uuid } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { keptRound } from './game.js';
import { ensurePlayer, loadJSON, saveJSON, storedPlayer } from './player.js';
import { copyButton, renderResult } from './result.js';
import { _, formatNumber, formatScore, N_, ngettext } from './strings.js';
import { codeField, errorNote, loading, offerButtons, rulesCatalog, rulesForm, rulesSummary } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Move} Move */
/** @typedef {Schemas['SeriesOut']} Series */
/** @typedef {'rounds' | 'to_score' | 'elimination'} Kind */
/** @typedef {'easy' | 'medium' | 'hard'} Level */
/** @typedef {Schemas['SeriesBounds']} Bounds */

/** @param {string} code */
export function seriesLink(code) {
  return `${location.origin}/play#series=${encodeURIComponent(code)}`;
}

// The formats: each kind's number (its bounds are the API's: GET /v1/rules, `series`),
// the number suggested and a line about it.
/** @type {Record<Kind, {label: string, field: string, help: string, bounds: 'rounds' | 'target' | 'limit', value: number}>} */
const KINDS = {
  rounds: { label: N_('A number of rounds'), field: N_('Rounds'), help: N_('Everyone plays this many rounds; the lowest total wins.'), bounds: 'rounds', value: 3 },
  to_score: { label: N_('Up to a score'), field: N_('Target'), help: N_('The series ends once a total reaches the target; the lowest total wins.'), bounds: 'target', value: 100 },
  elimination: { label: N_('Elimination'), field: N_('Limit'), help: N_('A player whose total reaches the limit is out; the last one left wins.'), bounds: 'limit', value: 45 },
};
/** @type {Record<Level, string>} */
const LEVELS = { easy: N_('Easy'), medium: N_('Medium'), hard: N_('Hard') };
const MINE_PAGE = 10; // the player's series listed at once

/** @param {string} playerId */
function lastKey(playerId) {
  return `series.${playerId}`;
}

/** @param {{format: Series['format'], shut_wins?: boolean}} series */
function formatLine(series) {
  const format = series.format;
  const line = format.kind === 'rounds'
    ? ngettext('{count} round', '{count} rounds', format.rounds)
    : format.kind === 'to_score'
      ? _('Until a total reaches {target}', { target: formatNumber(format.target) })
      : format.out_when === 'exceeded'
        ? _('Elimination: out above a total of {limit}', { limit: formatNumber(format.limit) })
        : _('Elimination: out at a total of {limit}', { limit: formatNumber(format.limit) });
  return series.shut_wins ? [line, _('shutting the box wins')].join(' · ') : line;
}

/**
 * The series part of the Friends view.
 * @returns {{el: HTMLElement, show: (code?: string) => void, destroy: () => void}}
 */
export function seriesPanel() {
  const titleId = uniqueId('series');
  const current = h('div', { class: 'series-current' });
  // The player's series, newest first.
  const mineTitle = uniqueId('series-mine');
  const mineList = h('ul', { class: 'series-list' });
  const mineMore = h('button', { type: 'button', class: 'secondary', hidden: true }, _('More series'));
  const mineNote = h('div', { 'aria-live': 'polite' });
  const mine = h('section', { class: 'series-mine', 'aria-labelledby': mineTitle, hidden: true },
    h('h3', { id: mineTitle }, _('Your series')), mineList, mineMore, mineNote);

  // Make a series.
  const kindName = uniqueId('series-kind');
  const numberId = uniqueId('series-number');
  const numberLabel = h('label', { for: numberId });
  const numberInput = h('input', { id: numberId, name: 'number', type: 'number', inputmode: 'numeric', required: true, 'aria-describedby': `${numberId}-help`, class: 'number-input' });
  const numberHelp = h('p', { class: 'field-help', id: `${numberId}-help` });
  const shutWins = h('input', { type: 'checkbox', name: 'shut_wins' });
  // Elimination: out at the limit (the sheets' way), or only above it.
  const outAbove = h('input', { type: 'checkbox', name: 'out_when' });
  const outAboveField = h('label', { class: 'radio checkbox' }, outAbove, h('span', {}, _('Out only above the limit: a total of exactly the limit stays in')));
  /** @type {Record<Level, HTMLInputElement>} */
  const seats = /** @type {Record<Level, HTMLInputElement>} */ ({});
  const seatFields = /** @type {Level[]} */ (['easy', 'medium', 'hard']).map((level) => {
    const id = uniqueId(`series-${level}`);
    seats[level] = h('input', { id, name: level, type: 'number', inputmode: 'numeric', min: 0, value: 0, class: 'number-input' });
    return h('div', { class: 'field seat-field' }, h('label', { for: id }, _(LEVELS[level])), seats[level]);
  });
  const rules = rulesForm();
  const createError = h('div', { class: 'form-error', 'aria-live': 'polite' });
  const createButton = h('button', { type: 'submit', class: 'primary' }, _('Make a series'));
  const createForm = h('form', { class: 'series-create', novalidate: true },
    h('fieldset', { class: 'modes' },
      h('legend', {}, _('Format')),
      /** @type {Kind[]} */ (['rounds', 'to_score', 'elimination']).map((kind) => h('label', { class: 'radio' },
        h('input', { type: 'radio', name: kindName, value: kind, checked: kind === 'rounds' }),
        h('span', {}, _(KINDS[kind].label))))),
    h('div', { class: 'field' }, numberLabel, numberInput, numberHelp),
    outAboveField,
    h('label', { class: 'radio checkbox' }, shutWins, h('span', {}, _('Shutting the box wins the series at once'))),
    h('fieldset', { class: 'seats' },
      h('legend', {}, _('Computer players')),
      h('div', { class: 'seat-fields' }, seatFields)),
    h('details', { class: 'rules-details' }, h('summary', {}, _('Rules'), h('span', { class: 'summary-note' }, _('standard unless you change them'))), rules.el),
    createError,
    createButton);

  // Join one by code.
  const { field: codeEntry, input: codeInput, onCode } = codeField({
    id: uniqueId('series-code'), label: _('Series code'), button: _('Join'), help: _('Like 7M3Q-K2ZD2. Case, spaces and dashes don’t matter.'),
  });
  const joinForm = h('form', { class: 'series-join', novalidate: true }, h('h3', {}, _('Join a series')), codeEntry);

  // Making one: folded under its name until wanted (the Friends view stays short).
  const make = h('details', { class: 'series-make' }, h('summary', {}, h('h3', {}, _('Make a series'))), createForm);
  const forms = h('div', { class: 'series-forms' }, make, joinForm);
  // Under a series shown, the forms wait behind this button.
  const another = h('button', {
    type: 'button',
    class: 'secondary',
    onclick: () => {
      forms.hidden = false;
      another.hidden = true;
      make.open = true;
      /** @type {HTMLElement | null} */ (make.querySelector('input'))?.focus();
    },
  }, _('Make or join another series'));
  another.hidden = true;
  const el = h('section', { class: 'panel series', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, _('Series')),
    h('p', { class: 'muted-text' }, _('A game night over several rounds: everyone plays the same dice, each at their own pace, and the lowest total wins.')),
    mine, current, another, forms);

  /** @type {import('./game.js').Round | null} */
  let round = null;
  let shown = 0; // the latest opening: an older one's answer is not shown over it
  let everyRound = false; // a phone's standings unfolded: they stay so on a refresh
  // What the API takes (GET /v1/rules); until it says, or if it can't, the form leaves
  // the numbers' range to the API's answer to the series made.
  /** @type {Bounds | null} */
  let bounds = null;

  /** @returns {Kind} */
  function kind() {
    const checked = /** @type {HTMLInputElement | null} */ (createForm.querySelector(`input[name="${kindName}"]:checked`));
    const value = checked?.value;
    return value === 'to_score' || value === 'elimination' ? value : 'rounds';
  }

  /** @returns {{min: number, max: number} | null} the range of the chosen kind's number */
  function range() {
    const b = bounds?.[KINDS[kind()].bounds];
    return b ? { min: b.minimum, max: b.maximum } : null;
  }

  /** @param {boolean} [suggest] the kind's suggested number in the field */
  function describeKind(suggest = true) {
    const k = KINDS[kind()];
    const r = range();
    numberLabel.textContent = _(k.field);
    if (r) {
      numberInput.min = String(r.min);
      numberInput.max = String(r.max);
    } else {
      numberInput.removeAttribute('min');
      numberInput.removeAttribute('max');
    }
    if (suggest) numberInput.value = String(k.value);
    numberHelp.textContent = r ? [_(k.help), _('From {min} to {max}.', { min: formatNumber(r.min), max: formatNumber(r.max) })].join(' ') : _(k.help);
    outAboveField.hidden = kind() !== 'elimination';
  }
  for (const radio of createForm.querySelectorAll(`input[name="${kindName}"]`)) radio.addEventListener('change', () => describeKind());
  describeKind();
  rulesCatalog().then((catalog) => {
    if (!catalog) return;
    bounds = catalog.series;
    for (const level of /** @type {Level[]} */ (['easy', 'medium', 'hard'])) seats[level].max = String(bounds.seats - 1); // one seat is the creator's
    describeKind(false); // what the player typed meanwhile stays
  });

  // Where one of the player's series stands for them, in a few words.
  /** @param {Schemas['SeriesOfPlayerOut']} entry */
  function standing(entry) {
    if (entry.status === 'finished') {
      return entry.place !== undefined ? _('Finished: you placed {place}', { place: formatNumber(entry.place) }) : _('Finished');
    }
    if (entry.next_round !== undefined) return _('Round {round} to play', { round: formatNumber(entry.next_round) });
    return _('Nothing to play for now');
  }

  /** @param {Schemas['SeriesOfPlayerOut']} entry */
  function mineItem(entry) {
    return h('li', { class: ['series-item', `series-${entry.status}`], 'data-code': entry.display_code },
      h('button', { type: 'button', class: 'secondary', onclick: () => open(entry.code, { focus: true }) }, _('Series {code}', { code: entry.display_code })),
      h('span', { class: 'series-item-format' }, formatLine(entry)),
      h('span', { class: 'series-item-standing' }, standing(entry)));
  }

  let mineRead = 0;
  /** @param {number} offset 0: the list anew */
  async function listMine(offset = 0) {
    mineMore.disabled = true;
    try {
      /** @type {Schemas['SeriesOfPlayerOut'][]} */
      const page = await api('GET', `/v1/players/me/series?limit=${MINE_PAGE}&offset=${offset}`, { auth: true });
      const items = page.map(mineItem);
      if (offset === 0) clear(mineList, items);
      else mineList.append(...items);
      mineRead = offset + page.length;
      mine.hidden = mineRead === 0;
      mineMore.hidden = page.length < MINE_PAGE;
      clear(mineNote);
    } catch (error) {
      clear(mineNote, errorNote(error, () => listMine(offset)));
    } finally {
      mineMore.disabled = false;
    }
  }
  mineMore.addEventListener('click', () => listMine(mineRead));

  /** @param {{ id?: string }} seat */
  function isMe(seat) {
    return seat.id !== undefined && seat.id === storedPlayer()?.id;
  }

  // A seat's name as the page shows it: a player who gave none is "You" to themselves
  // and numbered by their seat to the others, never "Anonymous".
  /** @param {{ id?: string, name?: string | null, seat: number }} seat */
  function seatName(seat) {
    return seat.name ?? (isMe(seat) ? _('You') : _('Player {number}', { number: formatNumber(seat.seat + 1) }));
  }

  /**
   * The standings, folded for a phone as a golf leaderboard is: place, player, total (and
   * in an elimination what is left before the limit) first, where a narrow screen always
   * shows them, then the rounds. A phone shows the round being played (who has played it,
   * who not yet) and keeps the earlier rounds, already in the totals, behind "Every
   * round"; a wider screen shows every round. Rows in order of place.
   * @param {Series} series
   */
  function standings(series) {
    const count = Math.max(0, ...series.players.map((p) => p.rounds.length));
    const numbers = Array.from({ length: count }, (_unused, i) => i + 1);
    const finished = series.status === 'finished';
    // The round the table waits on: the first not complete (the last one, once finished).
    const current = finished ? count : Math.min(count, series.rounds_complete + 1);
    const format = series.format;
    const limit = format.kind === 'elimination' ? format.limit : null;
    const rows = ranked(series);
    const tableId = uniqueId('standings');
    const table = h('table', { class: ['standings', everyRound && 'all-rounds'], id: tableId },
      h('caption', { class: 'sr-only' }, _('Standings')),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', class: 'num standings-place' }, h('span', { 'aria-hidden': 'true' }, '#'), h('span', { class: 'sr-only' }, _('Place'))),
        h('th', { scope: 'col' }, _('Player')),
        h('th', { scope: 'col', class: 'num standings-total' }, _('Total')),
        limit === null ? null : h('th', { scope: 'col', class: 'num standings-left' }, h('span', { 'aria-hidden': 'true' }, _('To {limit}', { limit: formatNumber(limit) })), h('span', { class: 'sr-only' }, _('Left before the limit of {limit}', { limit: formatNumber(limit) }))),
        numbers.map((n) => h('th', { scope: 'col', class: ['num', 'round-col', n === current && 'current'] },
          h('span', { 'aria-hidden': 'true' }, n === current ? _('Round {round}', { round: formatNumber(n) }) : formatNumber(n)),
          h('span', { class: 'sr-only' }, _('Round {round}', { round: formatNumber(n) })))))),
      h('tbody', {}, rows.map(({ seat, place }) => {
        const shown = seat.rounds.some((score) => score !== null && score !== undefined);
        return h('tr', { class: isMe(seat) ? 'is-you' : null, 'data-seat': seat.seat, 'data-place': seat.place ?? null },
          h('td', { class: 'num standings-place' }, formatNumber(place)),
          h('th', { scope: 'row', class: 'standings-name' },
            h('span', { class: 'standings-player' }, seatName(seat)),
            h('span', { class: 'standings-marks' },
              isMe(seat) ? h('span', { class: 'chip chip-you' }, _('you')) : null,
              seat.seat === 0 && !seat.computer ? h('span', { class: 'chip chip-owner' }, _('owner')) : null, // who made it
              seat.computer ? h('span', { class: 'chip' }, _('computer')) : null,
              seat.out ? h('span', { class: 'chip chip-out' }, _('out')) : null)),
          // No score shown yet (its rounds hidden until one plays them): no total, not a 0.
          h('td', { class: 'num standings-total', 'data-total': shown ? seat.total : null },
            shown ? formatNumber(seat.total) : [h('span', { 'aria-hidden': 'true' }, '—'), h('span', { class: 'sr-only' }, _('no score shown yet'))]),
          limit === null ? null : h('td', { class: 'num standings-left' }, seat.out ? [h('span', { 'aria-hidden': 'true' }, '—'), h('span', { class: 'sr-only' }, _('out'))] : formatNumber(Math.max(0, limit - seat.total))),
          numbers.map((n) => h('td', { class: ['num', 'round-score', 'round-col', n === current && 'current'], 'data-round': n, 'data-mark': roundMark(seat, n) },
            roundCell(series, seat, n))));
      })));
    const region = h('div', { class: 'table-scroll', role: 'region', 'aria-label': _('Standings'), tabindex: '0' }, table);
    // On a phone: every round on demand (a wider screen shows them all, and no button).
    const every = count > 1
      ? h('button', {
        type: 'button',
        class: 'secondary small-button every-round',
        'aria-controls': tableId,
        'aria-expanded': String(everyRound),
        onclick: (/** @type {MouseEvent} */ event) => {
          everyRound = !everyRound;
          table.classList.toggle('all-rounds', everyRound);
          /** @type {HTMLElement} */ (event.currentTarget).setAttribute('aria-expanded', String(everyRound));
        },
      }, _('Every round'))
      : null;
    const legend = h('p', { class: 'field-help standings-legend' },
      _('✓: played, its score shown once you have played that round. “not yet”: not played yet.'));
    return [region, h('div', { class: 'standings-foot' }, legend, every)];
  }

  /**
   * What a seat's cell of round n shows: its score, or why there is none.
   * @param {Series} series
   * @param {Schemas['SeriesPlayerOut']} seat
   * @param {number} n
   */
  function roundCell(series, seat, n) {
    const score = seat.rounds[n - 1];
    const mark = roundMark(seat, n);
    if (mark === 'score') return formatScore(/** @type {number} */ (score), series.rules.scoring);
    if (mark === 'played') return [h('span', { 'aria-hidden': 'true', class: 'played-mark' }, '✓'), h('span', { class: 'sr-only' }, _('played, not shown yet'))];
    if (mark === 'waiting') return h('span', { class: 'waiting-mark' }, _('not yet'));
    return [h('span', { 'aria-hidden': 'true' }, '—'), h('span', { class: 'sr-only' }, _('not shown'))];
  }

  /**
   * @param {Schemas['SeriesPlayerOut']} seat
   * @param {number} n a round
   * @returns {'score' | 'played' | 'waiting' | 'none'} its score shown; played, its score
   *   not shown yet; not played yet (a seat still in); nothing (out, or not counted)
   */
  function roundMark(seat, n) {
    const score = seat.rounds[n - 1];
    if (score !== null && score !== undefined) return 'score';
    if (seat.out) return 'none';
    return seat.played >= n ? 'played' : 'waiting';
  }

  /**
   * The seats in order of place: once finished, the series' places; until then those
   * still in by their total over the complete rounds (every seat's shown), then those out.
   * Ties share a place.
   * @param {Series} series
   * @returns {{seat: Schemas['SeriesPlayerOut'], place: number}[]}
   */
  function ranked(series) {
    /** @param {Schemas['SeriesPlayerOut']} seat @returns {number[]} */
    const key = (seat) => series.status === 'finished'
      ? [seat.place ?? Infinity]
      : [seat.out ? 1 : 0, seat.rounds.slice(0, series.rounds_complete).reduce((/** @type {number} */ sum, s) => sum + (s ?? 0), 0)];
    /** @param {number[]} a @param {number[]} b */
    const compare = (a, b) => a[0] - b[0] || (a[1] ?? 0) - (b[1] ?? 0);
    const sorted = [...series.players].sort((a, b) => compare(key(a), key(b)) || a.seat - b.seat);
    /** @type {{seat: Schemas['SeriesPlayerOut'], place: number}[]} */
    const rows = [];
    sorted.forEach((seat, i) => {
      const tied = i > 0 && compare(key(sorted[i - 1]), key(seat)) === 0;
      rows.push({ seat, place: series.status === 'finished' && seat.place !== undefined ? seat.place : tied ? rows[i - 1].place : i + 1 });
    });
    return rows;
  }

  /** @param {Series} series */
  function statusLine(series) {
    if (series.status === 'finished') {
      const names = series.winners.map(seatName).join(', ');
      return h('p', { class: 'good series-winners', role: 'status' }, ngettext('Winner: {names}', 'Winners: {names}', series.winners.length, { names }));
    }
    const complete = ngettext('{count} round complete', '{count} rounds complete', series.rounds_complete);
    return h('p', { class: 'series-status' }, series.status === 'open' ? [complete, _('friends can join until the first round is complete')].join(' · ') : complete);
  }

  /**
   * Show a series: its code, format, standings, and the player's next round (its button).
   * @param {Series} series
   * @param {{result?: Schemas['SeriesRunResult'], played?: number, focus?: boolean}} [options] result:
   *   the run of round `played` just sent
   */
  function render(series, { result, played = 0, focus = false } = {}) {
    round?.destroy();
    round = null;
    forms.hidden = true; // one series at a time: another on demand
    another.hidden = false;
    const player = storedPlayer();
    if (player) saveJSON(lastKey(player.id), series.code);
    if (!mineList.querySelector(`[data-code="${series.display_code}"]`)) listMine(); // a series new to the list
    const link = seriesLink(series.display_code);
    const title = h('h3', { tabindex: '-1', class: 'series-title' }, _('Series {code}', { code: series.display_code }));
    const stage = h('div', { class: 'stage series-stage' });
    const resultView = result ? renderResult(result, { title: _('Your result in round {round}', { round: formatNumber(played) }) }) : null;
    const refreshButton = h('button', { type: 'button', class: 'secondary', onclick: () => open(series.code, { focus: true }) }, _('Refresh'));
    const me = series.players.find(isMe);
    let note = null;
    if (series.status !== 'finished' && !series.next) {
      note = h('p', { class: 'muted-text' }, me?.out ? _('You are out of this series.') : _('You have played every round there is for now: refresh to see the others’ scores.'));
    }
    clear(current,
      h('div', { class: 'series-info' },
        title,
        h('p', { class: 'box-code', 'data-code': series.display_code }, series.display_code),
        h('p', { class: 'box-link series-link' }, h('a', { href: link }, link)),
        h('div', { class: 'actions' }, copyButton(() => series.display_code, _('Copy code')), copyButton(() => link, _('Copy link'))),
        h('p', { class: 'box-meta' }, h('span', {}, formatLine(series)), h('span', {}, rulesSummary(series.rules)))),
      resultView,
      h('h4', {}, _('Standings')),
      statusLine(series),
      standings(series),
      note,
      stage,
      h('div', { class: 'actions' }, refreshButton));
    if (series.status !== 'finished' && series.next && player) {
      const next = series.next;
      const storageKey = `progress.series.${player.id}.${series.code}.${next.round}`;
      keptRound({
        storageKey,
        rules: series.rules,
        dice: next.dice,
        label: _('Series {code}, round {round}', { code: series.display_code, round: formatNumber(next.round) }),
        stage,
        startLabel: _('Play round {round}', { round: formatNumber(next.round) }),
        submit: (moves, key) => submit(series, next.round, moves, key, storageKey),
        onStart: (started) => {
          round = started;
          forms.hidden = true; // one thing at a time while the round is on
          another.hidden = true;
          resultView?.remove();
        },
      });
    }
    if (resultView) resultView.focusHeading();
    else if (focus && !round) title.focus();
  }

  /**
   * @param {Series} series
   * @param {number} number the round
   * @param {Move[]} moves
   * @param {string} key the run's Idempotency-Key
   * @param {string} storageKey where its progress is kept
   */
  async function submit(series, number, moves, key, storageKey) {
    const stage = /** @type {HTMLElement} */ (current.querySelector('.series-stage'));
    clear(stage, loading(_('Checking your run…')));
    try {
      /** @type {Schemas['SeriesRunResult']} */
      const result = await api('POST', `/v1/series/${encodeURIComponent(series.code)}/rounds/${number}/runs`, {
        body: /** @satisfies {Schemas['SeriesRunSubmission']} */ ({ moves }), auth: true, idempotencyKey: key,
      });
      saveJSON(storageKey, null);
      render(result.series, { result, played: number });
    } catch (error) {
      // A failure on the way: the run is kept, to send again. Anything else: it can't be sent.
      const again = error instanceof ApiError && (error.status === 0 || error.status >= 500 || error.status === 429);
      if (!again) saveJSON(storageKey, null);
      round?.destroy();
      round = null;
      another.hidden = false;
      clear(stage, errorNote(error, again ? () => submit(series, number, moves, key, storageKey) : () => open(series.code, { focus: true })));
    }
  }

  /**
   * Open a series the player is in.
   * @param {string} code
   * @param {{focus?: boolean}} [options]
   */
  async function open(code, { focus = false } = {}) {
    shown += 1;
    const mine = shown;
    round?.destroy();
    round = null;
    clear(current, loading());
    try {
      await ensurePlayer();
      /** @type {Series} */
      const series = await api('GET', `/v1/series/${encodeURIComponent(code.trim())}`, { auth: true });
      if (mine !== shown) return;
      render(series, { focus });
    } catch (error) {
      if (mine !== shown) return;
      clear(current, errorNote(error, () => open(code, { focus })));
    }
  }

  /** @param {string} code */
  async function join(code) {
    await ensurePlayer();
    await askName();
    /** @type {Series} */
    const series = await api('POST', `/v1/series/${encodeURIComponent(code.trim())}/players`, { auth: true, idempotencyKey: uuid() });
    render(series, { focus: true });
  }

  // A series' link: its invitation (who made it, how it is played, who sits at it), and
  // to a player not in it, an offer to join; one in it already: the series itself.
  /** @param {string} code */
  async function invited(code) {
    shown += 1;
    const asking = shown;
    round?.destroy();
    round = null;
    clear(current, loading());
    /** @type {Schemas['SeriesInviteOut']} */
    let invitation;
    try {
      await ensurePlayer();
      invitation = await api('GET', `/v1/series/${encodeURIComponent(code.trim())}/invite`, { auth: true });
    } catch (error) {
      if (asking === shown) clear(current, errorNote(error, () => invited(code)));
      return;
    }
    if (asking !== shown) return;
    if (invitation.joined) {
      open(invitation.code, { focus: true });
      return;
    }
    const questionId = uniqueId('series-invite');
    const owner = invitation.owner.name;
    const about = [
      h('p', { class: 'box-meta' }, h('span', {}, formatLine(invitation)), h('span', {}, rulesSummary(invitation.rules))),
      invitation.players.length
        ? h('div', { class: 'series-seats' },
          h('p', {}, ngettext('{count} seat taken:', '{count} seats taken:', invitation.seats)),
          h('ul', { class: 'series-seat-list' }, invitation.players.map((seat, at) => h('li', {},
            seat.name ?? _('A player without a name'),
            at === 0 && !seat.computer ? h('span', { class: 'chip chip-owner' }, _('owner')) : null,
            seat.computer ? h('span', { class: 'chip' }, _('computer')) : null))))
        : null,
    ];
    const heading = h('h3', { id: `${questionId}-title`, tabindex: '-1' }, owner ? _('{name}’s series {code}', { name: owner, code: invitation.display_code }) : _('Series {code}', { code: invitation.display_code }));
    if (invitation.status !== 'open') {
      clear(current, h('div', { class: 'series-invite' },
        heading,
        about,
        h('p', { id: questionId }, invitation.status === 'finished' ? _('This series is over: nobody can join it any more.') : _('This series’ first round is complete: nobody can join it any more.')),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => { clear(current); codeInput.focus(); } }, _('Close')))));
      heading.focus();
      return;
    }
    const { yes, no, outcome } = offerButtons(questionId, _('Join this series'), () => join(invitation.code), () => {
      clear(current);
      forms.hidden = false;
      another.hidden = true;
      codeInput.focus();
    });
    clear(current, h('div', { class: 'series-invite' },
      heading,
      about,
      h('p', { id: questionId }, owner
        ? _('{name} invites you to this series. Join it? You play its rounds on the same dice as the others.', { name: owner })
        : _('Join the series {code}? You play its rounds on the same dice as the others.', { code: invitation.display_code })),
      h('div', { class: 'actions' }, yes, no),
      outcome));
    yes.focus();
  }

  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(createError);
    const k = kind();
    const number = Number(numberInput.value);
    numberInput.removeAttribute('aria-invalid');
    const r = range();
    if (!Number.isInteger(number) || (r && (number < r.min || number > r.max))) {
      numberInput.setAttribute('aria-invalid', 'true');
      clear(createError, errorNote(r
        ? _('{field}: a whole number from {min} to {max}.', { field: _(KINDS[k].field), min: formatNumber(r.min), max: formatNumber(r.max) })
        : _('{field}: a whole number.', { field: _(KINDS[k].field) })));
      numberInput.focus();
      return;
    }
    /** @type {Level[]} */
    const computers = [];
    const most = bounds ? bounds.seats - 1 : Infinity; // else the API says if there are too many
    for (const level of /** @type {Level[]} */ (['easy', 'medium', 'hard'])) {
      const n = Math.max(0, Math.min(most, Math.floor(Number(seats[level].value) || 0)));
      for (let i = 0; i < n; i += 1) computers.push(level);
    }
    /** @type {Schemas['NewSeries']['format']} */
    const format = k === 'rounds' ? { kind: 'rounds', rounds: number } : k === 'to_score' ? { kind: 'to_score', target: number } : { kind: 'elimination', limit: number, out_when: outAbove.checked ? 'exceeded' : 'reached' };
    createButton.disabled = true;
    try {
      await ensurePlayer();
      await askName();
      /** @type {Series} */
      const series = await api('POST', '/v1/series', {
        body: /** @satisfies {Schemas['NewSeries']} */ ({ rules: rules.value(), format, shut_wins: shutWins.checked, computers }), auth: true, idempotencyKey: uuid(),
      });
      shown += 1;
      render(series, { focus: true });
    } catch (error) {
      clear(createError, errorNote(error));
    } finally {
      createButton.disabled = false;
    }
  });

  onCode(joinForm, async (code) => {
    shown += 1;
    await join(code);
  });

  return {
    el,
    // A series' link: opened (or offered, to a player not in it). Else the one last
    // opened on this browser, unless a round of it is being played.
    show(code) {
      if (code) {
        history.replaceState(null, '', '#friends'); // a reload doesn't ask again
        invited(code);
        listMine();
        return;
      }
      listMine();
      if (round || current.childElementCount) return;
      const player = storedPlayer();
      const last = player ? loadJSON(lastKey(player.id)) : null;
      if (typeof last === 'string') open(last);
    },
    destroy() {
      round?.destroy();
      round = null;
    },
  };
}
