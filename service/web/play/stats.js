// @ts-check
// The player's statistics over their official Daily Dice runs (GET /v1/players/me/stats):
// the figures, and the scores as a small bar chart of plain HTML and CSS.
import { api } from './api.js';
import { clear, h } from './dom.js';
import { ensurePlayer } from './player.js';
import { stat, streakStats } from './result.js';
import { _, formatNumber, formatPercent, ngettext } from './strings.js';
import { errorNote, loading } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */

const LABELLED_EVERY = 5; // on a long chart, every fifth score is written under its bar
const SHORT_CHART = 16; // up to this many bars, every one

/** @param {number | null} value */
function mean(value) {
  return value === null ? '–' : formatNumber(value, 1);
}

// One bar a score from 0 to the highest played, its height the count's share of the
// most frequent score's. The bars are a picture; the counts are written out for screen
// readers beside it.
/** @param {Record<string, number>} distribution */
function scoreChart(distribution) {
  /** @type {[number, number][]} */
  const counts = Object.entries(distribution).map(([score, count]) => [Number(score), count]);
  counts.sort((a, b) => a[0] - b[0]);
  const byScore = new Map(counts);
  const highest = Math.max(...byScore.keys());
  const most = Math.max(...byScore.values());
  const scores = Array.from({ length: highest + 1 }, (_unused, score) => score);
  const bars = h('ol', { class: 'bars', 'aria-hidden': 'true' }, scores.map((score) => {
    const count = byScore.get(score) ?? 0;
    const bar = h('span', { class: 'bar' });
    // Set through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    bar.style.height = `${(count / most) * 100}%`;
    const labelled = scores.length <= SHORT_CHART || score % LABELLED_EVERY === 0;
    return h('li', { class: ['bar-column', count ? '' : 'empty'], 'data-score': score, 'data-count': count },
      h('span', { class: 'bar-count' }, count ? formatNumber(count) : ''),
      h('span', { class: 'bar-track' }, bar),
      h('span', { class: 'bar-score' }, labelled ? formatNumber(score) : ''));
  }));
  return h('figure', { class: 'score-chart' },
    h('figcaption', { class: 'chart-title' }, _('Your scores')),
    bars,
    h('ul', { class: 'sr-only' }, counts.map(([score, count]) => h('li', {},
      ngettext('Score {score}: {count} run', 'Score {score}: {count} runs', count, { score: formatNumber(score) })))),
    h('p', { class: 'muted-text small' }, _('How many of your official runs ended on each score (lower is better).')));
}

/**
 * The statistics' elements: the figures and the chart, or a sentence while there is no run.
 * @param {Schemas['PlayerStats']} stats
 */
export function renderStats(stats) {
  if (!stats.played) return [h('p', { class: 'muted-text no-stats' }, _('No official Daily Dice run yet: your figures start with your first.'))];
  return [
    h('div', { class: 'stats' },
      stat(_('Played'), formatNumber(stats.played), null, 'played'),
      stat(_('Shut the box'), formatNumber(stats.shut), null, 'shut'),
      stat(_('Shut rate'), formatPercent((stats.shut_rate ?? 0) * 100), null, 'shut-rate'),
      stat(_('Mean score'), mean(stats.mean_score), null, 'mean-score'),
      stat(_('Mean best possible'), mean(stats.mean_best_possible), null, 'mean-best-possible'),
      stat(_('Mean cost of your choices'), mean(stats.mean_cost), null, 'mean-cost'),
      ...streakStats(stats.streak)),
    scoreChart(stats.distribution),
  ];
}

/**
 * The statistics folded under their name where players look after a round (the Daily
 * Dice), read when opened: the Account tab is not where anyone looks for them.
 * @returns {HTMLDetailsElement}
 */
/**
 * The player's statistics as they are now, read into ``body`` (the Daily Dice tab's
 * folded panel, each time it is opened: daily.js loads this module then).
 * @param {HTMLElement} body
 */
export async function readStats(body) {
  clear(body, loading());
  try {
    await ensurePlayer();
    /** @type {Schemas['PlayerStats']} */
    const stats = await api('GET', '/v1/players/me/stats', { auth: true });
    clear(body, renderStats(stats));
  } catch (error) {
    clear(body, errorNote(error, () => readStats(body)));
  }
}
