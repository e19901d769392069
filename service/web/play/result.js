// @ts-check
// The result of a round: score, rank, streak or versus (or, for a practice run, where it
// would have ranked), the computer players on the same dice, the analysis against the
// exact solution, and the share text.
import { clear, h, uniqueId } from './dom.js';
import { moveDice, moveTiles } from './rules.js';
import { _, formatMove, formatNumber, formatPercent, formatScore, locale, N_, ngettext } from './strings.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Move} Move */
/**
 * What the result view shows: a run result (`POST /v1/analyze`), with the rank and
 * streak of an official daily run, the versus of a Friend Box run, or where a practice
 * run of a closed date would have ranked.
 * @typedef {Schemas['RunResult'] & {rank?: Schemas['Rank'], streak?: Schemas['Streak'], versus?: Schemas['Versus'], would_rank?: Schemas['WouldRank']}} ShownResult
 */
/** @typedef {{computer: string, analysis: string, share: string, next: string}} SectionIds */

// The analysis' labels (the server's label_text, in the page's language, comes first).
const LABELS = { best: N_('best'), inaccuracy: N_('inaccuracy'), mistake: N_('mistake'), blunder: N_('blunder') };
const OUTCOMES = {
  win: N_('You win! The owner scored {score}.'),
  tie: N_('A tie: the owner scored {score} too.'),
  loss: N_('The owner wins with {score}.'),
};

// Rank fields come rounded (a percentile of two decimals): below this many players the
// counts behind them (the players tied, the players with a worse score) are exact.
const EXACT_BELOW = 10000;

/**
 * A rank (or where a practice run would have ranked) in words: ties share a position and
 * the percentile is the share of the players with a worse score, so a player alone,
 * first, last or tied reads as such (never "better than 0% of players").
 * @param {{position: number, players: number, percentile: number}} rank
 * @param {boolean} [practice] would_rank: the players count the practice run as one more
 * @returns {string}
 */
export function rankNote({ position, players, percentile }, practice = false) {
  if (players <= 1) return practice ? _('Nobody played this date officially.') : _('The only player so far.');
  const better = position - 1;
  const worse = Math.round((percentile * players) / 100);
  let tied = Math.max(players - better - worse - 1, 0); // the others with this score
  // On a day of many players the counts are known to some tens: say them in round figures.
  if (players >= EXACT_BELOW && tied >= 100) tied = Number(tied.toPrecision(2));
  const first = better === 0;
  const last = worse === 0;
  if (!tied) {
    if (first) return players === 2 ? _('Better than the other player') : ngettext('Better than all {count} other player', 'Better than all {count} other players', players - 1);
    if (last) return players === 2 ? _('The other player scored better') : ngettext('All {count} other player scored better', 'All {count} other players scored better', players - 1);
    // Not first: never "better than 100%" from a rounded percentile.
    return _('Better than {percent} of players', { percent: formatPercent(Math.min(percentile, 99.9)) });
  }
  if (first && last) return tied === 1 ? _('Tied with the other player') : ngettext('Tied with all {count} other player', 'Tied with all {count} other players', tied);
  if (first) return ngettext('Tied for first with {count} other player', 'Tied for first with {count} other players', tied);
  if (last) return ngettext('Tied for last with {count} other player', 'Tied for last with {count} other players', tied);
  return ngettext(
    'Tied with {count} other player; better than {percent} of players',
    'Tied with {count} other players; better than {percent} of players',
    tied,
    { percent: formatPercent(Math.min(percentile, 99.9)) },
  );
}

// A score-like figure that keeps to one line in its card: under digits scoring a score
// can have a dozen digits, so its size follows its length (style.css: .fit, .fit-box).
/**
 * @param {HTMLElement} element
 * @param {string} text
 */
function fitted(element, text) {
  element.textContent = text;
  element.classList.add('fit');
  element.style.setProperty('--chars', String(Math.max(text.length, 1))); // the CSP refuses style attributes, not the CSSOM
  return element;
}

// A stat (below) whose value is such a figure.
/**
 * @param {HTMLElement} card
 * @param {string} text
 */
function fittedStat(card, text) {
  card.classList.add('fit-box');
  const value = card.querySelector('.stat-value');
  if (value instanceof HTMLElement) fitted(value, text);
  return card;
}

/** @param {Move} move */
function moveText(move) {
  const tiles = moveTiles(move);
  const text = tiles.length ? formatMove(tiles) : _('no move');
  return moveDice(move) === 1 ? _('{d1} (one die)', { d1: text }) : text;
}

/**
 * @param {readonly number[]} roll
 * @param {number} diceUsed
 */
function rollText(roll, diceUsed) {
  return diceUsed === 1 ? _('{d1} (one die)', { d1: roll[0] }) : `${roll[0]} + ${roll[1]}`;
}

// A figure with its label (and a note under it): the result's, the statistics'.
/**
 * @param {string} label
 * @param {string} value
 * @param {string | null} note
 * @param {string} [extra] more classes
 */
export function stat(label, value, note, extra = '') {
  return h('div', { class: ['stat', extra] },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: 'stat-value' }, value),
    note ? h('span', { class: 'stat-note' }, note) : null);
}

/**
 * A streak's figures: the daily streak, the streak freezes held, the weekly streak.
 * @param {Schemas['Streak']} streak
 */
export function streakStats(streak) {
  return [
    stat(_('Streak'), ngettext('{count} day', '{count} days', streak.current), _('Best {best}', { best: formatNumber(streak.best) }), 'streak'),
    stat(_('Streak freezes'), formatNumber(streak.freezes), _('One for every 7 days in a row, 2 at most'), 'freezes'),
    stat(_('Weekly streak'), ngettext('{count} week', '{count} weeks', streak.weekly.current), _('Best {best}', { best: formatNumber(streak.weekly.best) }), 'weekly'),
  ];
}

// Copy text to the clipboard: the Clipboard API where the page may use it (a secure
// context), else the old way through a selected text area.
/**
 * @param {string} text
 * @returns {Promise<boolean>} whether it was copied
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  const area = h('textarea', { class: 'offscreen', readonly: true, 'aria-hidden': 'true' });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand('copy');
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

// A Copy button for the text of an element, with its outcome announced.
/**
 * @param {() => string} getText
 * @param {string} [label]
 */
export function copyButton(getText, label = _('Copy')) {
  const status = h('span', { class: 'copy-status', role: 'status' });
  const button = h('button', {
    type: 'button',
    class: 'secondary',
    onclick: async () => {
      const ok = await copyText(getText());
      status.textContent = ok ? _('Copied!') : _('Copy failed: select the text and copy it yourself.');
    },
  }, label);
  return h('span', { class: 'copy' }, button, status);
}

/**
 * @param {ShownResult} result
 * @param {SectionIds} ids
 */
function computers(result, ids) {
  const scoring = result.rules.scoring;
  /** @type {[string, string, {score: number, shut: boolean}][]} */
  const players = [
    ['you', _('You'), { score: result.score, shut: result.shut }],
    ['easy', _('Easy'), result.computer.easy],
    ['medium', _('Medium'), result.computer.medium],
    ['hard', _('Hard'), result.computer.hard],
  ];
  return h('section', { class: 'panel computer', 'aria-labelledby': ids.computer },
    h('h3', { id: ids.computer }, _('The computer players on your dice')),
    h('ul', { class: 'computer-list' }, players.map(([key, name, run]) => h('li', {
      class: ['computer-player', 'fit-box', key === 'you' ? 'is-you' : '', key !== 'you' && run.score > result.score ? 'beaten' : ''],
      'data-player': key,
    },
    h('span', { class: 'computer-name' }, name),
    fitted(h('span', { class: 'computer-score' }), formatScore(run.score, scoring)),
    run.shut ? h('span', { class: 'computer-shut' }, _('shut')) : null))),
    // A struck-through score is one the player beat (not a player out).
    players.some(([key, , run]) => key !== 'you' && run.score > result.score)
      ? h('p', { class: 'muted-text small beaten-legend' }, h('span', { class: 'beaten-sample', 'aria-hidden': 'true' }, '12'), ' ', _('Struck through: a score you beat.'))
      : null,
    h('p', { class: 'muted-text small' }, _('Easy picks at random, Medium closes the highest tiles, Hard plays the best odds.')));
}

// Whether the roll's best set by the odds (`best`) did better than the set chosen (not
// merely another set as good).
/** @param {Schemas['MoveAnalysisOut']} m */
function worseSet(m) {
  return m.chosen.length > 0 && m.best.length > 0 && formatMove(m.best) !== formatMove(m.chosen)
    && m.expected_score - m.best_expected_score > 1e-9;
}

// What a roll's two measures say together, in one sentence that never contradicts its
// label: the label grades the choice by the odds at the time (expected loss, no later
// roll known); the cost is what it lost on the dice that came (hindsight).
/**
 * @param {Schemas['MoveAnalysisOut']} m
 * @param {string} scoring
 * @returns {HTMLElement | null}
 */
function verdict(m, scoring) {
  const otherSet = worseSet(m);
  const diceWorse = m.dice_loss > 0; // the other number of dice had the better odds
  if (m.hindsight_cost && m.hindsight_best) { // null without hindsight (dice a client brought)
    const params = { cost: formatScore(m.hindsight_cost, scoring), tiles: moveText(m.hindsight_best) };
    return h('span', { class: 'move-hindsight' }, m.label === 'best'
      ? _('The best odds at the time, but on these dice it cost {cost}: {tiles} would have done better.', params)
      : _('On these dice it cost {cost}: {tiles} would have done better.', params));
  }
  if (m.label === 'best' || m.hindsight_cost === null) return null;
  return h('span', { class: 'move-risky' }, otherSet
    ? _('Cost nothing on these dice, but a risky choice: {tiles} had better odds.', { tiles: formatMove(m.best) })
    : diceWorse && m.dice_used === 1
      ? _('Cost nothing on these dice, but a risky choice: rolling two dice had better odds.')
      : _('Cost nothing on these dice, but a risky choice: rolling one die had better odds.'));
}

/**
 * @param {ShownResult} result
 * @param {SectionIds} ids
 */
function analysis(result, ids) {
  const a = result.analysis;
  const scoring = result.rules.scoring;
  const cost = a.total_cost ?? 0; // null without hindsight: the page deals its Solo rounds
  const costly = a.moves.filter((m) => (m.hindsight_cost ?? 0) > 0);
  const risky = a.moves.filter((m) => m.label !== 'best' && m.hindsight_cost === 0);
  const labels = new Intl.ListFormat(locale(), { type: 'disjunction' }).format(Object.values(LABELS).map((label) => _(label)));
  const summary = cost > 0
    ? ngettext(
      'Knowing the later rolls, {count} choice could have been better (marked below): it cost {cost}.',
      'Knowing the later rolls, {count} choices could have been better (marked below): together they cost {cost}.',
      costly.length,
      { cost: formatScore(cost, scoring) },
    )
    : risky.length
      ? ngettext(
        'You found the best possible score on these dice, though {count} choice was a gamble that the dice happened to reward (marked below).',
        'You found the best possible score on these dice, though {count} choices were gambles that the dice happened to reward (marked below).',
        risky.length,
      )
      : _('You found the best possible score on these dice.');
  return h('section', { class: 'panel analysis', 'aria-labelledby': ids.analysis },
    h('h3', { id: ids.analysis }, _('Analysis')),
    a.best_possible === null ? null : h('div', { class: 'stats' },
      fittedStat(stat(_('Best possible on these dice'), '', _('knowing every roll in advance'), 'best-possible'), formatScore(a.best_possible, scoring)),
      fittedStat(stat(_('Your choices cost'), '', _('your score minus the best possible'), cost > 0 ? 'total-cost costly' : 'total-cost'),
        cost > 0 ? formatScore(cost, scoring) : _('nothing'))),
    a.hindsight ? h('p', { class: cost > 0 ? 'summary' : 'summary good' }, summary) : null,
    a.best_line?.length && a.best_possible !== null
      ? h('p', { class: 'best-line' }, _('A line that reaches {score}:', { score: formatScore(a.best_possible, scoring) }), ' ',
        h('span', { class: 'line' }, a.best_line.map((m, i) => [i ? h('span', { class: 'line-sep', 'aria-hidden': 'true' }, ' · ') : null, h('span', { class: 'line-move' }, moveText(m))])))
      : null,
    h('h4', {}, _('Move by move')),
    h('p', { class: 'muted-text small measures' },
      _('Each roll is judged two ways: its label grades the choice by the odds at the time, not knowing the rolls to come ({labels}); its cost is what it lost on the dice that did come.', { labels })),
    h('ol', { class: 'moves' }, a.moves.map((m) => {
      const played = m.chosen.length > 0;
      const chosen = played ? formatMove(m.chosen) : _('no move');
      const moveCost = m.hindsight_cost ?? 0;
      const betterBet = m.label !== 'best' && (m.hindsight_cost === null || moveCost > 0) && worseSet(m);
      return h('li', {
        class: ['move', moveCost > 0 ? 'costly' : '', moveCost > 0 && m.label === 'best' ? 'unlucky' : '', `label-${m.label}`],
        'data-index': m.index,
      },
      h('span', { class: 'move-roll' }, h('span', { class: 'move-no' }, _('Roll {roll}', { roll: m.index + 1 })), ' ', rollText(m.roll, m.dice_used)),
      h('span', { class: 'move-you' }, _('You: {tiles}', { tiles: chosen })),
      played || m.label !== 'best' ? h('span', { class: ['chip', `chip-${m.label}`] }, m.label_text || _(LABELS[m.label] ?? m.label)) : null,
      betterBet ? h('span', { class: 'move-best' }, _('Best odds: {tiles}', { tiles: formatMove(m.best) })) : null,
      verdict(m, scoring));
    })));
}

// The share sheet where the browser has one (the Web Share API), else the clipboard.
/**
 * @param {string} text
 * @returns {Promise<'shared' | 'copied' | 'closed' | 'failed'>}
 */
export async function shareText(text) {
  if (typeof navigator.share === 'function') {
    try {
      await navigator.share({ text });
      return 'shared';
    } catch (error) {
      // Closed without sharing: nothing to say. Not allowed here: the clipboard then.
      if (error instanceof DOMException && error.name === 'AbortError') return 'closed';
    }
  }
  return (await copyText(text)) ? 'copied' : 'failed';
}

/**
 * The share text (the server's, spoiler-free) with the link that opens the game on this
 * result's date, a Share button (the share sheet, else a copy) and a Copy button.
 * @param {() => Promise<string>} share
 * @param {string | null} link
 * @param {SectionIds} ids
 */
function shareSection(share, link, ids) {
  const text = h('pre', { class: 'share-text', tabindex: '0' }, _('Getting your share text…'));
  const status = h('span', { class: 'copy-status', role: 'status' });
  const actions = h('div', { class: 'actions share-actions' });
  const section = h('section', { class: 'panel share', 'aria-labelledby': ids.share },
    h('h3', { id: ids.share }, _('Share your result')), text, actions, status);
  share().then(
    (value) => {
      const whole = link ? `${value}\n${link}` : value;
      text.textContent = whole;
      const canShare = typeof navigator.share === 'function';
      const shareButton = h('button', {
        type: 'button',
        class: 'primary share-button',
        onclick: async () => {
          const done = await shareText(whole);
          status.textContent = done === 'copied' ? _('Copied: paste it to your friends.')
            : done === 'failed' ? _('Copy failed: select the text and copy it yourself.') : '';
        },
      }, canShare ? _('Share') : _('Copy to share'));
      clear(actions, shareButton, canShare ? copyButton(() => whole) : null);
    },
    (error) => {
      clear(text);
      section.replaceChild(h('p', { class: 'error', role: 'alert' }, error.detail ?? String(error)), text);
    },
  );
  return section;
}

/**
 * The result view. result: a run_result, with rank and streak (daily), versus (box) or
 * would_rank (practice).
 * options.share: async () → the share text, shown near the top with options.link (the
 * link back to it) and options.next (what to play next); options.title: the heading.
 * @param {ShownResult} result
 * @param {{share?: (() => Promise<string>) | null, link?: string | null, next?: HTMLElement | null, title?: string}} [options]
 * @returns {HTMLElement & {focusHeading: () => void}} the view, and a way to focus its heading
 */
export function renderResult(result, { share = null, link = null, next = null, title = _('Your result') } = {}) {
  const ids = { computer: uniqueId('computer'), analysis: uniqueId('analysis'), share: uniqueId('share'), next: uniqueId('next') };
  const heading = h('h2', { tabindex: '-1', class: 'result-title' }, title);
  const scoring = result.rules.scoring;
  const score = formatScore(result.score, scoring);
  const stats = [];
  if (result.rank) {
    stats.push(stat(_('Rank'), _('{position} of {players}', { position: formatNumber(result.rank.position), players: formatNumber(result.rank.players) }),
      rankNote(result.rank), 'rank'));
  }
  if (result.would_rank) {
    const { position, players } = result.would_rank;
    // Alone on the date (the players count the practice run): no rank to compare with.
    stats.push(players <= 1
      ? stat(_('Official players'), formatNumber(0), _('Nobody played this date officially: there is no rank to compare with.'), 'would-rank alone')
      : stat(_('Would have ranked'), _('{position} of {players}', { position: formatNumber(position), players: formatNumber(players) }),
        rankNote(result.would_rank, true), 'would-rank'));
  }
  if (result.streak) {
    stats.push(...streakStats(result.streak));
  }
  if (result.versus) {
    const { outcome, owner_score: ownerScore } = result.versus;
    stats.push(stat(_('Versus the owner'), _(OUTCOMES[outcome] ?? outcome, { score: formatScore(ownerScore, scoring) }), null, `versus versus-${outcome}`));
  }
  const section = h('section', { class: 'result', 'aria-label': title },
    heading,
    // A long score (digits scoring) takes the card's whole width, the text below it.
    h('div', { class: ['hero', result.shut ? 'hero-shut' : '', score.length > 4 ? 'hero-long' : ''] },
      h('div', { class: 'hero-score' },
        h('span', { class: 'hero-label' }, _('Score')),
        fitted(h('span', { class: 'hero-value', 'data-score': result.score }), score)),
      h('div', { class: 'hero-text' },
        h('strong', {}, result.shut ? _('Shut the box!') : _('Open: {tiles}', { tiles: result.open.join(' ') })),
        h('span', {}, ngettext('{count} roll', '{count} rolls', result.rolls_used)))),
    stats.length ? h('div', { class: 'stats' }, stats) : null,
    share ? shareSection(share, link, ids) : null,
    next ? h('section', { class: 'panel next', 'aria-labelledby': ids.next }, h('h3', { id: ids.next }, _('What next?')), next) : null,
    analysis(result, ids),
    computers(result, ids));
  return Object.assign(section, { focusHeading: () => heading.focus({ preventScroll: false }) });
}
