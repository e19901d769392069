// The player of this browser: created on the first visit with a token made here,
// kept in localStorage as {id, token, name, time_zone}.
import { api, uuid } from './api.js';
import { chosenLanguage } from './strings.js';

const KEY = 'shutbox.player';
let memory = null; // when localStorage is not available (some private modes)
const listeners = new Set();

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}

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

export function savePlayer(player) {
  memory = player;
  write(KEY, JSON.stringify(player));
  for (const listener of listeners) listener(player);
}

export function forgetPlayer() {
  memory = null;
  write(KEY, null);
  for (const listener of listeners) listener(null);
}

export function onPlayerChange(listener) {
  listeners.add(listener);
}

export function token() {
  return storedPlayer()?.token ?? null;
}

// Small values kept per player (saved games, boxes played): JSON under one key each.
export function loadJSON(key, fallback = null) {
  const text = read(`shutbox.${key}`);
  if (!text) return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

export function saveJSON(key, value) {
  write(`shutbox.${key}`, value === null ? null : JSON.stringify(value));
}

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
  const post = (time_zone) =>
    api('POST', '/v1/players', { body: { token: ownToken, time_zone }, idempotencyKey: uuid() });
  let answer;
  try {
    answer = await post(browserTimeZone());
  } catch (error) {
    if (!error.is?.('unknown-time-zone')) throw error;
    answer = await post('UTC'); // a zone the server does not know: play on UTC
  }
  const player = remember(answer, ownToken);
  // A language chosen on this page before there was a player: the player's from now on.
  const chosen = chosenLanguage();
  if (chosen) await api('PATCH', '/v1/players/me', { body: { language: chosen }, token: player.token }).catch(() => null);
  return player;
}

let creating = null;

// The stored player, or a new one made now (once, however many views ask at once).
export function ensurePlayer() {
  const player = storedPlayer();
  if (player) return Promise.resolve(player);
  creating ??= create().finally(() => {
    creating = null;
  });
  return creating;
}

// Refresh the stored name and time zone from the server: {player, streak}.
export async function refreshPlayer() {
  const player = await ensurePlayer();
  const me = await api('GET', '/v1/players/me', { auth: true });
  const updated = { ...player, name: me.name ?? null, time_zone: me.time_zone };
  if (updated.name !== player.name || updated.time_zone !== player.time_zone) savePlayer(updated);
  return { player: updated, me };
}

export async function changePlayer(change) {
  const player = await ensurePlayer();
  const answer = await api('PATCH', '/v1/players/me', { body: change, auth: true });
  const updated = { ...player, name: answer.name ?? null, time_zone: answer.time_zone };
  savePlayer(updated);
  return updated;
}

export async function offerTransfer() {
  await ensurePlayer();
  return api('POST', '/v1/players/me/transfer', { auth: true });
}

// Claim a transfer code: this browser becomes that player, with a new token.
export async function claim(code) {
  const ownToken = newToken();
  const answer = await api('POST', '/v1/players/claim', { body: { code, token: ownToken } });
  return remember(answer, ownToken);
}

// Today's date (YYYY-MM-DD) in a time zone.
export function todayIn(timeZone, now = new Date()) {
  let parts;
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  } catch {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  }
  const part = (type) => parts.find((p) => p.type === type).value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}
