// @ts-check
// The result of a round: score, rank, streak or versus (or, for a practice run, where it
// would have ranked), the computer players on the same dice, the analysis against the
// exact solution, and the share text.
import { clear, h, uniqueId } from './dom.js';
import { moveDice, moveTiles } from './rules.js';
import { _, formatMove, formatNumber, formatPercent, N_, ngettext } from './strings.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Move} Move */
/**
 * What the result view shows: a run result (`POST /v1/analyze`), with the rank and
 * streak of an official daily run, the versus of a Friend Box run, or where a practice
 * run of a closed date would have ranked.
 * @typedef {Schemas['RunResult'] & {rank?: Schemas['Rank'], streak?: Schemas['Streak'], versus?: Schemas['Versus'], would_rank?: Schemas['WouldRank']}} ShownResult
 */
/** @typedef {{computer: string, analysis: string, share: string}} SectionIds */

// The analysis' labels (the server's label_text, in the page's language, comes first).
const LABELS = { best: N_('best'), inaccuracy: N_('inaccuracy'), mistake: N_('mistake'), blunder: N_('blunder') };
const OUTCOMES = {
  win: N_('You win! The owner scored {score}.'),
  tie: N_('A tie: the owner scored {score} too.'),
  loss: N_('The owner wins with {score}.'),
};

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
      class: ['computer-player', key === 'you' ? 'is-you' : '', key !== 'you' && run.score > result.score ? 'beaten' : ''],
      'data-player': key,
    },
    h('span', { class: 'computer-name' }, name),
    h('span', { class: 'computer-score' }, formatNumber(run.score)),
    run.shut ? h('span', { class: 'computer-shut' }, _('shut')) : null))),
    h('p', { class: 'muted-text small' }, _('Easy picks at random, Medium closes the highest tiles, Hard plays the best odds.')));
}

/**
 * @param {ShownResult} result
 * @param {SectionIds} ids
 */
function analysis(result, ids) {
  const a = result.analysis;
  const costly = a.moves.filter((m) => m.hindsight_cost > 0);
  return h('section', { class: 'panel analysis', 'aria-labelledby': ids.analysis },
    h('h3', { id: ids.analysis }, _('Analysis')),
    h('div', { class: 'stats' },
      stat(_('Best possible on these dice'), formatNumber(a.best_possible), null, 'best-possible'),
      stat(_('Your choices cost'), `+${formatNumber(a.total_cost)}`, null, a.total_cost > 0 ? 'total-cost costly' : 'total-cost')),
    h('p', { class: a.total_cost > 0 ? 'summary' : 'summary good' }, a.total_cost > 0
      ? ngettext(
        'Knowing the later rolls, {count} choice could have been better (marked below): it cost {cost}.',
        'Knowing the later rolls, {count} choices could have been better (marked below): together they cost {cost}.',
        costly.length,
        { cost: formatNumber(a.total_cost) },
      )
      : _('You found the best possible score on these dice.')),
    a.best_line.length
      ? h('p', { class: 'best-line' }, _('A line that reaches {score}:', { score: formatNumber(a.best_possible) }), ' ',
        h('span', { class: 'line' }, a.best_line.map((m, i) => [i ? h('span', { class: 'line-sep', 'aria-hidden': 'true' }, ' · ') : null, h('span', { class: 'line-move' }, moveText(m))])))
      : null,
    h('h4', {}, _('Move by move')),
    h('ol', { class: 'moves' }, a.moves.map((m) => {
      const played = m.chosen.length > 0;
      const chosen = played ? formatMove(m.chosen) : _('no move');
      const betterBet = played && m.best.length && formatMove(m.best) !== chosen;
      return h('li', { class: ['move', m.hindsight_cost > 0 ? 'costly' : '', `label-${m.label}`], 'data-index': m.index },
        h('span', { class: 'move-roll' }, h('span', { class: 'move-no' }, _('Roll {roll}', { roll: m.index + 1 })), ' ', rollText(m.roll, m.dice_used)),
        h('span', { class: 'move-you' }, _('You: {tiles}', { tiles: chosen })),
        played ? h('span', { class: ['chip', `chip-${m.label}`] }, m.label_text || _(LABELS[m.label] ?? m.label)) : null,
        betterBet ? h('span', { class: 'move-best' }, _('Best odds: {tiles}', { tiles: formatMove(m.best) })) : null,
        m.hindsight_cost > 0
          ? h('span', { class: 'move-hindsight' }, _('Hindsight: {tiles}', { tiles: moveText(m.hindsight_best) }), ' ', h('strong', { class: 'cost' }, _('cost +{cost}', { cost: formatNumber(m.hindsight_cost) })))
          : null);
    })),
    costly.length || a.moves.some((m) => m.label !== 'best') ? h('p', { class: 'muted-text small' }, _('Labels compare each choice with the best odds at the time (no foresight); the cost is what it lost on the dice that came.')) : null);
}

/**
 * @param {() => Promise<string>} share
 * @param {SectionIds} ids
 */
function shareSection(share, ids) {
  const text = h('pre', { class: 'share-text', tabindex: '0' }, _('Getting your share text…'));
  const section = h('section', { class: 'panel share', 'aria-labelledby': ids.share },
    h('h3', { id: ids.share }, _('Share')), text);
  share().then(
    (value) => {
      text.textContent = value;
      section.append(copyButton(() => value));
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
 * options.share: async () → the share text; options.title: the heading.
 * @param {ShownResult} result
 * @param {{share?: (() => Promise<string>) | null, title?: string}} [options]
 * @returns {HTMLElement & {focusHeading: () => void}} the view, and a way to focus its heading
 */
export function renderResult(result, { share = null, title = _('Your result') } = {}) {
  const ids = { computer: uniqueId('computer'), analysis: uniqueId('analysis'), share: uniqueId('share') };
  const heading = h('h2', { tabindex: '-1', class: 'result-title' }, title);
  const stats = [];
  if (result.rank) {
    stats.push(stat(_('Rank'), _('{position} of {players}', { position: formatNumber(result.rank.position), players: formatNumber(result.rank.players) }),
      _('Better than {percent} of players', { percent: formatPercent(result.rank.percentile) }), 'rank'));
  }
  if (result.would_rank) {
    const { position, players, percentile } = result.would_rank;
    stats.push(stat(_('Would have ranked'), _('{position} of {players}', { position: formatNumber(position), players: formatNumber(players) }),
      _('Better than {percent} of players', { percent: formatPercent(percentile) }), 'would-rank'));
  }
  if (result.streak) {
    stats.push(stat(_('Streak'), ngettext('{count} day', '{count} days', result.streak.current), _('Best {best}', { best: formatNumber(result.streak.best) }), 'streak'));
  }
  if (result.versus) {
    const { outcome, owner_score: ownerScore } = result.versus;
    stats.push(stat(_('Versus the owner'), _(OUTCOMES[outcome] ?? outcome, { score: formatNumber(ownerScore) }), null, `versus versus-${outcome}`));
  }
  const section = h('section', { class: 'result', 'aria-label': title },
    heading,
    h('div', { class: ['hero', result.shut ? 'hero-shut' : ''] },
      h('div', { class: 'hero-score' },
        h('span', { class: 'hero-label' }, _('Score')),
        h('span', { class: 'hero-value', 'data-score': result.score }, formatNumber(result.score))),
      h('div', { class: 'hero-text' },
        h('strong', {}, result.shut ? _('Shut the box!') : _('Open: {tiles}', { tiles: result.open.join(' ') })),
        h('span', {}, ngettext('{count} roll', '{count} rolls', result.rolls_used)))),
    stats.length ? h('div', { class: 'stats' }, stats) : null,
    analysis(result, ids),
    computers(result, ids),
    share ? shareSection(share, ids) : null);
  return Object.assign(section, { focusHeading: () => heading.focus({ preventScroll: false }) });
}
