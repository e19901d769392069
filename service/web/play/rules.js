// The rules engine of the page: the same legal moves as the server's
// service/rules/ruleset.py and replay.py. Positions are bit masks: bit t-1 is set
// while tile t is open.

export const STANDARD = Object.freeze({ tiles: 9, one_die: 'never', move_rule: 'any', scoring: 'sum' });
export const ONE_DIE = ['never', 'high_closed', 'sum_le_6'];
export const MOVE_RULES = ['any', 'dice_or_sum', 'single'];
export const SCORINGS = ['sum', 'count', 'digits'];
export const MIN_TILES = 2;
export const MAX_TILES = 12;

// A rules object with every field set (the server omits `start` when it is null).
export function normalize(rules = {}) {
  const full = { ...STANDARD, ...rules };
  if (full.start === null || full.start === undefined) delete full.start;
  return full;
}

export function isStandard(rules) {
  const r = normalize(rules);
  return r.tiles === 9 && r.one_die === 'never' && r.move_rule === 'any' && r.scoring === 'sum' && !r.start;
}

export function maskOf(tiles) {
  let mask = 0;
  for (const tile of tiles) mask |= 1 << (tile - 1);
  return mask;
}

export function tilesOf(mask) {
  const tiles = [];
  for (let t = 1; mask >> (t - 1); t += 1) if ((mask >> (t - 1)) & 1) tiles.push(t);
  return tiles;
}

export function bitCount(mask) {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n += 1;
  return n;
}

export function startPosition(rules) {
  const r = normalize(rules);
  return r.start ? maskOf(r.start) : (1 << r.tiles) - 1;
}

export function rollTotal(roll, dice) {
  return dice === 2 ? roll[0] + roll[1] : roll[0];
}

// Whether the player may choose to roll one die in this position.
export function oneDieAllowed(rules, open) {
  const r = normalize(rules);
  if (r.one_die === 'high_closed') return open >> 6 === 0;
  if (r.one_die === 'sum_le_6') return tilesOf(open).reduce((a, b) => a + b, 0) <= 6;
  return false;
}

// The final score with these tiles open (lower is better); a shut box is 0.
export function score(rules, open) {
  const r = normalize(rules);
  const tiles = tilesOf(open);
  if (r.scoring === 'count') return tiles.length;
  if (r.scoring === 'digits') return tiles.length ? Number(tiles.join('')) : 0;
  return tiles.reduce((a, b) => a + b, 0);
}

// Medium's order: compare sets by their tiles in descending order, highest first.
function mediumCompare(a, b) {
  const x = tilesOf(a).reverse();
  const y = tilesOf(b).reverse();
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return y[i] - x[i];
  return y.length - x.length;
}

const bySumCache = new Map();

function setsBySum(tiles) {
  let table = bySumCache.get(tiles);
  if (!table) {
    table = new Map();
    for (let mask = 1; mask < 1 << tiles; mask += 1) {
      const total = tilesOf(mask).reduce((a, b) => a + b, 0);
      if (total <= 12) {
        if (!table.has(total)) table.set(total, []);
        table.get(total).push(mask);
      }
    }
    for (const list of table.values()) list.sort(mediumCompare);
    bySumCache.set(tiles, table);
  }
  return table;
}

// Every set of tiles the move rule allows for this roll, open or not.
export function candidateSets(rules, roll, dice) {
  const r = normalize(rules);
  const d1 = roll[0];
  const d2 = dice === 2 ? roll[1] : 0; // 0 stands for a one-die roll
  const total = d1 + d2;
  if (r.move_rule === 'any') return setsBySum(r.tiles).get(total) ?? [];
  const sets = new Set();
  if (r.move_rule === 'dice_or_sum') {
    if (total <= r.tiles) sets.add(maskOf([total]));
    if (d2 && d1 !== d2 && Math.max(d1, d2) <= r.tiles) sets.add(maskOf([d1, d2]));
  } else {
    for (const t of new Set([d1, d2, total])) if (t >= 1 && t <= r.tiles) sets.add(maskOf([t]));
  }
  return [...sets].sort(mediumCompare);
}

// The sets the player may close in this position on this roll.
export function legalSets(rules, open, roll, dice) {
  return candidateSets(rules, roll, dice).filter((m) => (m & open) === m);
}

// A move as the API takes it: a list of tiles (two dice) or {dice: 1, tiles}.
export function moveOut(closedMask, dice) {
  const tiles = tilesOf(closedMask);
  return dice === 1 ? { dice: 1, tiles } : tiles;
}

export function moveDice(move) {
  return Array.isArray(move) ? 2 : move.dice ?? 2;
}

export function moveTiles(move) {
  return Array.isArray(move) ? move : move.tiles ?? [];
}

// Replays moves from the start, as the server does: the state reached, or null if
// some move is not legal (a stale saved game, say).
export function replay(rules, dice, moves) {
  let open = startPosition(rules);
  let ended = false;
  for (let index = 0; index < moves.length; index += 1) {
    if (ended || open === 0 || index >= dice.length) return null;
    const n = moveDice(moves[index]);
    if (n === 1 && !oneDieAllowed(rules, open)) return null;
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
