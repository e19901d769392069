// @ts-check
// The rules engine of the page: the same legal moves as the server's
// service/rules/ruleset.py and replay.py. Positions are bit masks: bit t-1 is set
// while tile t is open.

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {Schemas['Rules']} Rules a rules object as the API takes it: a field left out is the standard's */
/**
 * A rules object with every field set (normalize): `start`, `first_must_close` and
 * `stop_on_total` only when they are set.
 * @typedef {Required<Omit<Rules, 'start' | 'first_must_close' | 'stop_on_total'>>
 *   & {start?: number[], first_must_close?: number, stop_on_total?: number}} FullRules
 */
/** @typedef {[number, number]} Roll a roll of two dice, [d1, d2]: one die counts d1 only */
/** @typedef {number[] | Schemas['MoveObject']} Move a move as a run writes it: its tiles, or {dice, tiles} */

export const STANDARD = Object.freeze({
  tiles: 9, one_die: 'never', move_rule: 'any', scoring: 'sum', total: 'sum', one_die_choice: 'optional',
});
export const ONE_DIE = ['never', 'high_closed', 'sum_le_6'];
export const MOVE_RULES = ['any', 'dice_or_sum', 'single', 'die_or_sum', 'die_or_sum_both'];
export const SCORINGS = ['sum', 'count', 'digits'];
export const TOTALS = ['sum', 'sum_or_difference'];
export const ONE_DIE_CHOICES = ['optional', 'mandatory'];
export const MIN_TILES = 2;
export const MAX_TILES = 12;
export const MIN_STOP_TOTAL = 2;
export const MAX_STOP_TOTAL = 12;
// The fields that are absent (or null) unless set: every tile open at the start, no
// tile the first move must close, no total that ends the turn.
/** @type {readonly ('start' | 'first_must_close' | 'stop_on_total')[]} */
const UNSET_BY_DEFAULT = ['start', 'first_must_close', 'stop_on_total'];

/** @type {WeakSet<Rules>} */
const NORMALIZED = new WeakSet(); // made here: normalized already (and not to be changed)

// A rules object with every field set (the server omits `start`, `first_must_close`
// and `stop_on_total` when they are null).
/**
 * @param {Rules} [rules]
 * @returns {FullRules}
 */
export function normalize(rules = {}) {
  if (NORMALIZED.has(rules)) return /** @type {FullRules} */ (rules);
  const full = { ...STANDARD, ...rules };
  for (const name of UNSET_BY_DEFAULT) if (full[name] === null || full[name] === undefined) delete full[name];
  NORMALIZED.add(full);
  return /** @type {FullRules} */ (full); // its nulls left out
}

/** @param {Rules} rules */
export function isStandard(rules) {
  const r = /** @type {Record<string, unknown>} */ (normalize(rules));
  return Object.entries(STANDARD).every(([name, value]) => r[name] === value)
    && UNSET_BY_DEFAULT.every((name) => !(name in r));
}

/** @param {readonly number[]} tiles */
export function maskOf(tiles) {
  let mask = 0;
  for (const tile of tiles) mask |= 1 << (tile - 1);
  return mask;
}

/**
 * @param {number} mask
 * @returns {number[]} ascending
 */
export function tilesOf(mask) {
  const tiles = [];
  for (let t = 1; mask >> (t - 1); t += 1) if ((mask >> (t - 1)) & 1) tiles.push(t);
  return tiles;
}

/** @param {number} mask */
export function bitCount(mask) {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n += 1;
  return n;
}

/** @param {Rules} rules */
export function startPosition(rules) {
  const r = normalize(rules);
  return r.start ? maskOf(r.start) : (1 << r.tiles) - 1;
}

/**
 * @param {readonly number[]} roll
 * @param {number} dice
 */
export function rollTotal(roll, dice) {
  return dice === 2 ? roll[0] + roll[1] : roll[0];
}

// Whether the player may choose to roll one die in this position.
/**
 * @param {Rules} rules
 * @param {number} open
 */
export function oneDieAllowed(rules, open) {
  const r = normalize(rules);
  if (r.one_die === 'high_closed') return open >> 6 === 0;
  if (r.one_die === 'sum_le_6') return tilesOf(open).reduce((a, b) => a + b, 0) <= 6;
  return false;
}

// The numbers of dice the player may roll in this position: [2], [2, 1] where one die
// is allowed, or [1] there when one die is mandatory (as Rules.dice_choices).
/**
 * @param {Rules} rules
 * @param {number} open
 * @returns {number[]}
 */
export function diceChoices(rules, open) {
  const r = normalize(rules);
  if (!oneDieAllowed(r, open)) return [2];
  return r.one_die_choice === 'mandatory' ? [1] : [2, 1];
}

// The final score with these tiles open (lower is better); a shut box is 0.
/**
 * @param {Rules} rules
 * @param {number} open
 */
export function score(rules, open) {
  const r = normalize(rules);
  const tiles = tilesOf(open);
  if (r.scoring === 'count') return tiles.length;
  if (r.scoring === 'digits') return tiles.length ? Number(tiles.join('')) : 0;
  return tiles.reduce((a, b) => a + b, 0);
}

// Medium's order: compare sets by their tiles in descending order, highest first.
/**
 * @param {number} a
 * @param {number} b
 */
function mediumCompare(a, b) {
  const x = tilesOf(a).reverse();
  const y = tilesOf(b).reverse();
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return y[i] - x[i];
  return y.length - x.length;
}

/** @type {Map<number, Map<number, number[]>>} */
const bySumCache = new Map();

/**
 * @param {number} tiles
 * @returns {Map<number, number[]>} the sets of each total up to 12, in Medium's order
 */
function setsBySum(tiles) {
  let table = bySumCache.get(tiles);
  if (!table) {
    table = new Map();
    for (let mask = 1; mask < 1 << tiles; mask += 1) {
      const total = tilesOf(mask).reduce((a, b) => a + b, 0);
      if (total <= 12) {
        const sets = table.get(total);
        if (sets) sets.push(mask);
        else table.set(total, [mask]);
      }
    }
    for (const list of table.values()) list.sort(mediumCompare);
    bySumCache.set(tiles, table);
  }
  return table;
}

// The numbers a roll may count as: its total (the dice's sum, or the one die), and
// under `sum_or_difference` the difference of two dice when it is not 0.
/**
 * @param {FullRules} r
 * @param {Roll} roll
 * @param {number} dice
 */
function rollNumbers(r, roll, dice) {
  const total = rollTotal(roll, dice);
  const difference = dice === 2 && r.total === 'sum_or_difference' ? Math.abs(roll[0] - roll[1]) : 0;
  return difference ? [total, difference] : [total];
}

/** @type {Map<string, number[]>} */
const candidatesCache = new Map(); // bounded: box sizes × move rules × totals × stops × rolls

// Every set of tiles the move rule allows for this roll, open or not (a set of a
// reading of the roll: its total, its difference, a die, both dice), highest tiles
// first; none on a roll that ends the turn (as Rules.candidate_sets).
/**
 * @param {Rules} rules
 * @param {Roll} roll
 * @param {number} dice
 * @returns {number[]}
 */
export function candidateSets(rules, roll, dice) {
  const r = normalize(rules);
  const key = [r.tiles, r.move_rule, r.total, r.stop_on_total, roll[0], dice === 2 ? roll[1] : 0].join('/');
  let sets = candidatesCache.get(key);
  if (!sets) {
    sets = rollTotal(roll, dice) === r.stop_on_total ? [] : readingSets(r, roll, dice);
    candidatesCache.set(key, sets);
  }
  return sets;
}

/**
 * @param {FullRules} r
 * @param {Roll} roll
 * @param {number} dice
 * @returns {number[]}
 */
function readingSets(r, roll, dice) {
  const numbers = rollNumbers(r, roll, dice);
  if (r.move_rule === 'any' && numbers.length === 1) return setsBySum(r.tiles).get(numbers[0]) ?? [];
  /** @type {Set<number>} */
  const sets = new Set();
  if (r.move_rule === 'any') {
    for (const n of numbers) for (const m of setsBySum(r.tiles).get(n) ?? []) sets.add(m);
  } else {
    const two = dice === 2 && roll[0] !== roll[1]; // two different dice: two tiles
    const singles = [...numbers];
    if (r.move_rule === 'single' || r.move_rule.startsWith('die_or_sum')) singles.push(roll[0], dice === 2 ? roll[1] : roll[0]);
    for (const t of singles) if (t >= 1 && t <= r.tiles) sets.add(maskOf([t]));
    if (two && r.move_rule !== 'single' && Math.max(...roll) <= r.tiles) sets.add(maskOf(roll));
  }
  return [...sets].sort(mediumCompare);
}

// Whether this roll ends the turn before it is played: its total is `stop_on_total`.
/**
 * @param {Rules} rules
 * @param {Roll} roll
 * @param {number} dice
 */
export function stopsTurn(rules, roll, dice) {
  const r = normalize(rules);
  return r.stop_on_total !== undefined && rollTotal(roll, dice) === r.stop_on_total;
}

// The tile a move must close in this position (`first_must_close`, before any move),
// else undefined.
/**
 * @param {Rules} rules
 * @param {number} open
 * @returns {number | undefined}
 */
export function tileToClose(rules, open) {
  const r = normalize(rules);
  return r.first_must_close !== undefined && open === startPosition(r) ? r.first_must_close : undefined;
}

// The sets the player may close in this position on this roll (as Rules.legal_sets,
// the one function that says what is legal): the candidates that are open, but under
// `die_or_sum_both`, while the tiles of both (different) dice are open, not one die's
// tile alone unless the roll allows that tile another way (its total or difference);
// and under `first_must_close`, in the start position, only those closing that tile.
/**
 * @param {Rules} rules
 * @param {number} open
 * @param {Roll} roll
 * @param {number} dice
 * @returns {number[]}
 */
export function legalSets(rules, open, roll, dice) {
  const r = normalize(rules);
  const must = tileToClose(r, open);
  const mustBit = must === undefined ? 0 : 1 << (must - 1);
  const both = maskOf(roll);
  const guarded = r.move_rule === 'die_or_sum_both' && dice === 2 && roll[0] !== roll[1] && (open & both) === both;
  const numbers = guarded ? rollNumbers(r, roll, dice).map((n) => maskOf([n])) : [];
  return candidateSets(r, roll, dice).filter((m) => (m & open) === m
    && (!mustBit || (m & mustBit) !== 0)
    && !(guarded && (m & both) && bitCount(m) === 1 && !numbers.includes(m)));
}

// A move as the API takes it: a list of tiles (two dice) or {dice: 1, tiles}.
/**
 * @param {number} closedMask
 * @param {number} dice
 * @returns {Move}
 */
export function moveOut(closedMask, dice) {
  const tiles = tilesOf(closedMask);
  return dice === 1 ? { dice: 1, tiles } : tiles;
}

/**
 * @param {Move} move
 * @returns {number}
 */
export function moveDice(move) {
  return Array.isArray(move) ? 2 : move.dice ?? 2;
}

/**
 * @param {Move} move
 * @returns {number[]}
 */
export function moveTiles(move) {
  return Array.isArray(move) ? move : move.tiles ?? [];
}

// Replays moves from the start, as the server does: the state reached, or null if
// some move is not legal (a stale saved game, say).
/**
 * @param {Rules} rules
 * @param {Roll[]} dice
 * @param {Move[]} moves
 * @returns {{open: number, index: number, ended: boolean} | null}
 */
export function replay(rules, dice, moves) {
  let open = startPosition(rules);
  let ended = false;
  for (let index = 0; index < moves.length; index += 1) {
    if (ended || open === 0 || index >= dice.length) return null;
    const n = moveDice(moves[index]);
    if (!diceChoices(rules, open).includes(n)) return null;
    const closed = maskOf(moveTiles(moves[index]));
    const options = legalSets(rules, open, dice[index], n);
    if (closed === 0) {
      if (options.length) return null;
      ended = true;
      continue;
    }
    if (!options.includes(closed)) return null;
    open ^= closed;
  }
  return { open, index: moves.length, ended };
}
