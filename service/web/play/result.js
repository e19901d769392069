// The result of a round: score, rank, streak or versus, the computer players on the
// same dice, the analysis against the exact solution, and the share text.
import { clear, h, uniqueId } from './dom.js';
import { moveDice, moveTiles } from './rules.js';
import { formatMove, formatNumber, formatPercent, t, tn } from './strings.js';

function moveText(move) {
  const tiles = moveTiles(move);
  const text = tiles.length ? formatMove(tiles) : t('result.noMove');
  return moveDice(move) === 1 ? t('history.one', { d1: text }) : text;
}

function rollText(roll, diceUsed) {
  return diceUsed === 1 ? t('history.one', { d1: roll[0] }) : t('history.two', { d1: roll[0], d2: roll[1] });
}

function stat(label, value, note, extra = '') {
  return h('div', { class: ['stat', extra] },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: 'stat-value' }, value),
    note ? h('span', { class: 'stat-note' }, note) : null);
}

// Copy text to the clipboard: the Clipboard API where the page may use it (a secure
// context), else the old way through a selected text area.
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
export function copyButton(getText, label = t('common.copy')) {
  const status = h('span', { class: 'copy-status', role: 'status' });
  const button = h('button', {
    type: 'button',
    class: 'secondary',
    onclick: async () => {
      const ok = await copyText(getText());
      status.textContent = ok ? t('common.copied') : t('common.copyFailed');
    },
  }, label);
  return h('span', { class: 'copy' }, button, status);
}

function computers(result, ids) {
  const players = [
    ['you', t('result.you'), { score: result.score, shut: result.shut }],
    ['easy', t('result.easy'), result.computer.easy],
    ['medium', t('result.medium'), result.computer.medium],
    ['hard', t('result.hard'), result.computer.hard],
  ];
  return h('section', { class: 'panel computer', 'aria-labelledby': ids.computer },
    h('h3', { id: ids.computer }, t('result.computer')),
    h('ul', { class: 'computer-list' }, players.map(([key, name, run]) => h('li', {
      class: ['computer-player', key === 'you' ? 'is-you' : '', key !== 'you' && run.score > result.score ? 'beaten' : ''],
      'data-player': key,
    },
    h('span', { class: 'computer-name' }, name),
    h('span', { class: 'computer-score' }, formatNumber(run.score)),
    run.shut ? h('span', { class: 'computer-shut' }, t('result.computerShut')) : null))),
    h('p', { class: 'muted-text small' }, t('result.computerNote')));
}

function analysis(result, ids) {
  const a = result.analysis;
  const costly = a.moves.filter((m) => m.hindsight_cost > 0);
  return h('section', { class: 'panel analysis', 'aria-labelledby': ids.analysis },
    h('h3', { id: ids.analysis }, t('result.analysis')),
    h('div', { class: 'stats' },
      stat(t('result.bestPossible'), formatNumber(a.best_possible), null, 'best-possible'),
      stat(t('result.totalCost'), `+${formatNumber(a.total_cost)}`, null, a.total_cost > 0 ? 'total-cost costly' : 'total-cost')),
    h('p', { class: a.total_cost > 0 ? 'summary' : 'summary good' }, a.total_cost > 0
      ? tn('result.couldBeBetter', costly.length, { cost: formatNumber(a.total_cost) })
      : t('result.perfect')),
    a.best_line.length
      ? h('p', { class: 'best-line' }, t('result.bestLine', { score: formatNumber(a.best_possible) }),
        h('span', { class: 'line' }, a.best_line.map((m, i) => [i ? h('span', { class: 'line-sep', 'aria-hidden': 'true' }, ' · ') : null, h('span', { class: 'line-move' }, moveText(m))])))
      : null,
    h('h4', {}, t('result.moves')),
    h('ol', { class: 'moves' }, a.moves.map((m) => {
      const played = m.chosen.length > 0;
      const chosen = played ? formatMove(m.chosen) : t('result.noMove');
      const betterBet = played && m.best.length && formatMove(m.best) !== chosen;
      return h('li', { class: ['move', m.hindsight_cost > 0 ? 'costly' : '', `label-${m.label}`], 'data-index': m.index },
        h('span', { class: 'move-roll' }, h('span', { class: 'move-no' }, t('result.moveRoll', { roll: m.index + 1 })), ' ', rollText(m.roll, m.dice_used)),
        h('span', { class: 'move-you' }, t('result.you_chose', { tiles: chosen })),
        played ? h('span', { class: ['chip', `chip-${m.label}`] }, t(`result.label.${m.label}`)) : null,
        betterBet ? h('span', { class: 'move-best' }, t('result.best_bet', { tiles: formatMove(m.best) })) : null,
        m.hindsight_cost > 0
          ? h('span', { class: 'move-hindsight' }, t('result.hindsight', { tiles: moveText(m.hindsight_best) }), ' ', h('strong', { class: 'cost' }, t('result.cost', { cost: formatNumber(m.hindsight_cost) })))
          : null);
    })),
    costly.length || a.moves.some((m) => m.label !== 'best') ? h('p', { class: 'muted-text small' }, t('result.labelHelp')) : null);
}

function shareSection(share, ids) {
  const text = h('pre', { class: 'share-text', tabindex: '0' }, t('result.shareLoading'));
  const section = h('section', { class: 'panel share', 'aria-labelledby': ids.share },
    h('h3', { id: ids.share }, t('result.share')), text);
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
 * The result view. result: a run_result, with rank and streak (daily) or versus (box).
 * options.share: async () → the share text; options.title: the heading.
 */
export function renderResult(result, { share = null, title = t('result.title') } = {}) {
  const ids = { computer: uniqueId('computer'), analysis: uniqueId('analysis'), share: uniqueId('share') };
  const heading = h('h2', { tabindex: '-1', class: 'result-title' }, title);
  const stats = [];
  if (result.rank) {
    stats.push(stat(t('result.rank'), t('result.rankValue', { position: formatNumber(result.rank.position), players: formatNumber(result.rank.players) }),
      t('result.percentile', { p: formatPercent(result.rank.percentile) }), 'rank'));
  }
  if (result.streak) {
    stats.push(stat(t('result.streak'), tn('result.streakValue', result.streak.current), t('result.streakBest', { best: formatNumber(result.streak.best) }), 'streak'));
  }
  if (result.versus) {
    const { outcome, owner_score: ownerScore } = result.versus;
    stats.push(stat(t('result.versus'), t(`result.${outcome}`, { score: formatNumber(ownerScore) }), null, `versus versus-${outcome}`));
  }
  const section = h('section', { class: 'result', 'aria-label': title },
    heading,
    h('div', { class: ['hero', result.shut ? 'hero-shut' : ''] },
      h('div', { class: 'hero-score' },
        h('span', { class: 'hero-label' }, t('result.scoreLabel')),
        h('span', { class: 'hero-value', 'data-score': result.score }, formatNumber(result.score))),
      h('div', { class: 'hero-text' },
        h('strong', {}, result.shut ? t('result.shut') : t('result.open', { tiles: result.open.join(' ') })),
        h('span', {}, tn('result.rolls', result.rolls_used)))),
    stats.length ? h('div', { class: 'stats' }, stats) : null,
    analysis(result, ids),
    computers(result, ids),
    share ? shareSection(share, ids) : null);
  section.focusHeading = () => heading.focus({ preventScroll: false });
  return section;
}
