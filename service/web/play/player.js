// @ts-check
// The player of this browser: created on the first visit with a token made here,
// kept in localStorage as {id, token, name, time_zone}.
import { api, ApiError, uuid } from './api.js';
import { chosenLanguage, useTimeZone } from './strings.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {{id: string, token: string, name: string | null, time_zone: string}} StoredPlayer */

const KEY = 'shutbox.player';
/** @type {StoredPlayer | null} */
let memory = null; // when localStorage is not available (some private modes)
/** @type {Set<(player: StoredPlayer | null) => void>} */
const listeners = new Set();

/** @param {string} key */
function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string | null} value null: removed
 */
function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}

/** @returns {StoredPlayer | null} */
export function storedPlayer() {
  const text = read(KEY);
  if (text) {
    try {
      const player = JSON.parse(text);
      if (player && typeof player.token === 'string') return player;
    } catch {
      // a broken entry: start again
    }
  }
  return memory;
}

/** @param {StoredPlayer} player */
export function savePlayer(player) {
  memory = player;
  useTimeZone(player.time_zone);
  write(KEY, JSON.stringify(player));
  for (const listener of listeners) listener(player);
}

export function forgetPlayer() {
  memory = null;
  useTimeZone(null);
  write(KEY, null);
  for (const listener of listeners) listener(null);
}

// Times are written in the stored player's zone from the start.
useTimeZone(storedPlayer()?.time_zone);

/** @param {(player: StoredPlayer | null) => void} listener */
export function onPlayerChange(listener) {
  listeners.add(listener);
}

export function token() {
  return storedPlayer()?.token ?? null;
}

// Small values kept per player (saved games, boxes played): JSON under one key each.
/**
 * @param {string} key
 * @param {any} [fallback] what a missing or broken value reads as
 * @returns {any} the value as the page saved it (saveJSON)
 */
export function loadJSON(key, fallback = null) {
  const text = read(`shutbox.${key}`);
  if (!text) return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/**
 * @param {string} key
 * @param {unknown} value null: removed
 */
export function saveJSON(key, value) {
  write(`shutbox.${key}`, value === null ? null : JSON.stringify(value));
}

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

// A bearer token made here: 32 random bytes, URL-safe base64 without padding.
export function newToken() {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export function browserTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/**
 * @param {Schemas['CreatedPlayer']} answer
 * @param {string} ownToken
 * @returns {StoredPlayer}
 */
function remember(answer, ownToken) {
  const player = {
    id: answer.id,
    token: answer.token || ownToken,
    name: answer.name ?? null,
    time_zone: answer.time_zone ?? 'UTC',
  };
  savePlayer(player);
  return player;
}

async function create() {
  const ownToken = newToken();
  /** @type {(time_zone: string) => Promise<Schemas['CreatedPlayer']>} */
  const post = (time_zone) =>
    api('POST', '/v1/players', { body: /** @satisfies {Schemas['NewPlayer']} */ ({ token: ownToken, time_zone }), idempotencyKey: uuid() });
  let answer;
  try {
    answer = await post(browserTimeZone());
  } catch (error) {
    if (!(error instanceof ApiError && error.is('unknown-time-zone'))) throw error;
    answer = await post('UTC'); // a zone the server does not know: play on UTC
  }
  const player = remember(answer, ownToken);
  // A language chosen on this page before there was a player: the player's from now on.
  const chosen = chosenLanguage();
  if (chosen) await api('PATCH', '/v1/players/me', { body: /** @satisfies {Schemas['PlayerChange']} */ ({ language: chosen }), token: player.token }).catch(() => null);
  return player;
}

/** @type {Promise<StoredPlayer> | null} */
let creating = null;

// The stored player, or a new one made now (once, however many views ask at once).
/** @returns {Promise<StoredPlayer>} */
export function ensurePlayer() {
  const player = storedPlayer();
  if (player) return Promise.resolve(player);
  creating ??= create().finally(() => {
    creating = null;
  });
  return creating;
}

// Refresh the stored name and time zone from the server: {player, streak}.
/** @returns {Promise<{player: StoredPlayer, me: Schemas['PlayerWithStreak']}>} */
export async function refreshPlayer() {
  const player = await ensurePlayer();
  /** @type {Schemas['PlayerWithStreak']} */
  const me = await api('GET', '/v1/players/me', { auth: true });
  const updated = { ...player, name: me.name ?? null, time_zone: me.time_zone };
  if (updated.name !== player.name || updated.time_zone !== player.time_zone) savePlayer(updated);
  return { player: updated, me };
}

/**
 * @param {Schemas['PlayerChange']} change
 * @returns {Promise<StoredPlayer>}
 */
export async function changePlayer(change) {
  const player = await ensurePlayer();
  /** @type {Schemas['Player']} */
  const answer = await api('PATCH', '/v1/players/me', { body: change, auth: true });
  const updated = { ...player, name: answer.name ?? null, time_zone: answer.time_zone };
  savePlayer(updated);
  return updated;
}

/** @returns {Promise<Schemas['TransferCode']>} */
export async function offerTransfer() {
  await ensurePlayer();
  return api('POST', '/v1/players/me/transfer', { auth: true });
}

// Claim a transfer code: this browser becomes that player, with a new token.
/**
 * @param {string} code
 * @returns {Promise<StoredPlayer>}
 */
export async function claim(code) {
  const ownToken = newToken();
  const answer = await api('POST', '/v1/players/claim', { body: /** @satisfies {Schemas['Claim']} */ ({ code, token: ownToken }) });
  return remember(answer, ownToken);
}

// Today's date (YYYY-MM-DD) in a time zone.
/**
 * @param {string} timeZone
 * @param {Date} [now]
 */
export function todayIn(timeZone, now = new Date()) {
  let parts;
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  } catch {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  }
  // A year, month and day asked for are always among the parts.
  /** @param {Intl.DateTimeFormatPartTypes} type */
  const part = (type) => /** @type {Intl.DateTimeFormatPart} */ (parts.find((p) => p.type === type)).value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}
