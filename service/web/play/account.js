// @ts-check
// Account: the player's name and time zone, their statistics, and moving the player to
// another device.
import { api, ApiError } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { browserTimeZone, changePlayer, claim, ensurePlayer, loadJSON, offerTransfer, refreshPlayer, saveJSON, todayIn } from './player.js';
import { renderStats } from './stats.js';
import { _, formatDate, formatMoment, formatNumber, formatTime, locale, N_, zoneName, zoneOffset } from './strings.js';
import { errorNote, loading, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */

// The name this browser gives a zone (Chromium: Asia/Calcutta for Asia/Kolkata), or null.
/** @param {string} zone */
function canonical(zone) {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * @param {string} a
 * @param {string} b
 */
function sameZone(a, b) {
  return a === b || (canonical(a) !== null && canonical(a) === canonical(b));
}

// The zones to choose from: every zone this browser knows (Intl.supportedValuesOf; else
// the device's), UTC, and the player's own under its own name (in place of this browser's
// name for it). Each named by its city and its offset now ("Oslo (UTC+1)"), sorted by
// offset, then by name in the page's language.
/**
 * @param {string} current the player's zone
 * @returns {{zone: string, name: string, offset: number}[]}
 */
export function zoneChoices(current) {
  /** @type {string[]} */
  let known = [];
  try {
    known = Intl.supportedValuesOf('timeZone');
  } catch {
    known = [];
  }
  const zones = new Set(known);
  for (const zone of [browserTimeZone(), 'UTC']) if (!zones.has(zone) && !zones.has(canonical(zone) ?? zone)) zones.add(zone);
  if (!zones.has(current)) {
    const alias = canonical(current);
    if (alias) zones.delete(alias);
    zones.add(current);
  }
  const now = new Date();
  const collator = new Intl.Collator(locale());
  return [...zones]
    .map((zone) => ({ zone, name: zoneName(zone, now), offset: zoneOffset(zone, now) }))
    .sort((a, b) => a.offset - b.offset || collator.compare(a.name, b.name));
}

/**
 * @param {{onClaimed: () => void}} options onClaimed: this browser became another player
 * @returns {import('./ui.js').View}
 */
export function accountView({ onClaimed }) {
  const card = h('div', { class: 'panel player-card', 'aria-live': 'polite' });

  // The statistics over the official Daily Dice runs.
  const statsTitle = uniqueId('stats');
  const statsBody = h('div', { class: 'stats-body', 'aria-live': 'polite' });
  const statsPanel = h('section', { class: 'panel player-stats', 'aria-labelledby': statsTitle },
    h('h2', { id: statsTitle }, _('Your statistics')),
    h('p', { class: 'muted-text' }, _('Over your official Daily Dice runs (not boxes, not practice).')),
    statsBody);

  // Move to another device: a one-time code.
  const codeArea = h('div', { class: 'transfer-code', 'aria-live': 'polite' });
  const getCode = h('button', { type: 'button', class: 'primary' }, _('Get a transfer code'));
  getCode.addEventListener('click', async () => {
    getCode.disabled = true;
    clear(codeArea, loading());
    try {
      const offer = await offerTransfer();
      clear(codeArea,
        h('p', { class: 'muted-text' }, _('Your transfer code')),
        h('p', { class: 'box-code', 'data-code': offer.display_code }, offer.display_code),
        h('p', { class: 'muted-text small' }, _('Valid until {time}. Shown once: a new code replaces it.', { time: formatMoment(offer.expires_at) })));
    } catch (error) {
      clear(codeArea, errorNote(error));
    } finally {
      getCode.disabled = false;
    }
  });
  const move = h('section', { class: 'panel' },
    h('h2', {}, _('Move to another device')), h('p', { class: 'muted-text' }, _('Get a one-time code and enter it on the new device within 15 minutes. This browser then stops being this player.')), getCode, codeArea);

  // I have a code.
  const claimId = uniqueId('claim');
  const claimInput = h('input', { id: claimId, type: 'text', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', maxlength: '64', class: 'code-input' });
  const claimNote = h('div', { 'aria-live': 'polite' });
  const claimForm = h('form', { class: 'panel' },
    h('h2', {}, _('I have a code')),
    h('p', { class: 'muted-text' }, _('Enter the code from your other device. This browser’s current player is replaced by that one.')),
    h('div', { class: 'field' }, h('label', { for: claimId }, _('Transfer code')),
      h('div', { class: 'inline' }, claimInput, h('button', { type: 'submit', class: 'primary' }, _('Move my player here')))),
    claimNote);
  claimForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!claimInput.value.trim()) return;
    clear(claimNote, loading());
    try {
      const player = await claim(claimInput.value.trim());
      claimInput.value = '';
      clear(claimNote, h('p', { class: 'good' }, player.name
        ? _('Welcome back, {name}! This browser is now your player.', { name: player.name })
        : _('Welcome back! This browser is now your player.')));
      onClaimed();
      render();
      showStats();
    } catch (error) {
      clear(claimNote, errorNote(error));
    }
  });

  const el = h('section', { class: 'view view-account' }, viewHeader(_('Account'), _('Your player lives in this browser. No e-mail, no password.')), card, statsPanel, move, claimForm);

  async function showStats() {
    statsPanel.hidden = false;
    clear(statsBody, loading());
    try {
      await ensurePlayer();
      /** @type {Schemas['PlayerStats']} */
      const stats = await api('GET', '/v1/players/me/stats', { auth: true });
      clear(statsBody, renderStats(stats));
    } catch (error) {
      // A player moved to another device has no statistics here: the card above says so.
      if (error instanceof ApiError && error.status === 401) statsPanel.hidden = true;
      else clear(statsBody, errorNote(error, showStats));
    }
  }

  /** @param {{zoneSaved?: boolean}} [options] zoneSaved: say the time zone was saved */
  async function render({ zoneSaved = false } = {}) {
    move.hidden = false;
    clear(card, loading());
    try {
      await ensurePlayer();
      const { player, me } = await refreshPlayer();
      const nameId = uniqueId('name');
      const nameInput = h('input', { id: nameId, type: 'text', maxlength: '40', autocomplete: 'nickname', value: player.name ?? '', 'aria-describedby': `${nameId}-help` });
      const nameNote = h('div', { 'aria-live': 'polite' });
      const nameForm = h('form', { class: 'field' },
        h('label', { for: nameId }, _('Name')),
        h('div', { class: 'inline' }, nameInput, h('button', { type: 'submit', class: 'secondary' }, _('Save name'))),
        h('p', { class: 'field-help', id: `${nameId}-help` }, _(NAME_SHOWN), ' ', _('Up to 40 characters.')), nameNote);
      nameForm.addEventListener('submit', async (event) => {
        event.preventDefault();
        try {
          const value = nameInput.value.trim();
          await changePlayer({ name: value || null });
          clear(nameNote, h('p', { class: 'good' }, _('Saved.')));
        } catch (error) {
          clear(nameNote, errorNote(error));
        }
      });
      // The time zone: a picker of every zone by city and offset, saved with a button (it
      // can change once in 24 hours: the server refuses a second change sooner, saying when).
      const zoneId = uniqueId('zone');
      const zoneNote = h('div', { 'aria-live': 'polite' }, zoneSaved ? h('p', { class: 'good' }, _('Saved.')) : null);
      const zoneSelect = h('select', { id: zoneId, name: 'time_zone', class: 'zone-select', 'aria-describedby': `${zoneId}-help` },
        zoneChoices(player.time_zone).map((choice) => h('option', { value: choice.zone, selected: choice.zone === player.time_zone }, choice.name)));
      const saveZone = h('button', { type: 'submit', class: 'secondary', disabled: true }, _('Save time zone'));
      const zoneNow = h('p', { class: 'field-help zone-now' });
      const showTime = () => {
        zoneNow.textContent = _('Time there now: {time}', { time: formatTime(new Date(), zoneSelect.value) });
      };
      const showZone = () => {
        saveZone.disabled = zoneSelect.value === player.time_zone;
        showTime();
      };
      // The time there is kept to the minute while this form is on the page (a page left
      // open would otherwise say a stale time under "now"); one drawn anew stops it.
      const nextMinute = () => setTimeout(() => {
        if (!zoneNow.isConnected) return;
        showTime();
        nextMinute();
      }, 60_000 - (Date.now() % 60_000));
      nextMinute();
      zoneSelect.addEventListener('change', () => {
        clear(zoneNote);
        showZone();
      });
      showZone();
      /** @param {string} zone */
      const changeZone = async (zone) => {
        clear(zoneNote, loading());
        try {
          await changePlayer({ time_zone: zone });
          render({ zoneSaved: true });
        } catch (error) {
          const possibleAt = error instanceof ApiError && error.is('time-zone-change-too-soon') ? error.problem.possible_at : null;
          zoneSelect.value = player.time_zone; // unchanged: the picker says so
          showZone();
          clear(zoneNote, errorNote(typeof possibleAt === 'string'
            ? _('Your time zone changed less than 24 hours ago; it can change again from {time}.', { time: formatMoment(possibleAt) })
            : error));
        }
      };
      const zoneForm = h('form', { class: 'field zone-field' },
        h('label', { for: zoneId }, _('Time zone')),
        h('div', { class: 'inline' }, zoneSelect, saveZone),
        zoneNote,
        zoneNow,
        h('p', { class: 'field-help', id: `${zoneId}-help` }, _('Your Daily Dice day follows it. It can change once in 24 hours.')));
      zoneForm.addEventListener('submit', (event) => {
        event.preventDefault();
        if (zoneSelect.value !== player.time_zone) changeZone(zoneSelect.value);
      });
      const device = browserTimeZone();
      const useZone = sameZone(device, player.time_zone)
        ? null
        : h('button', {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            zoneSelect.value = device;
            showZone();
            changeZone(device);
          },
        }, _('Use this device’s time zone: {zone}', { zone: zoneName(device) }));
      clear(card,
        h('h2', {}, _('Your player')),
        nameForm,
        zoneForm,
        useZone,
        h('p', { class: 'muted-text' }, _('Streak: {current} (best {best})', { current: formatNumber(me.streak.current), best: formatNumber(me.streak.best) })),
        h('p', { class: 'muted-text small' }, _('Playing since {date}', { date: formatDate(todayIn(player.time_zone, new Date(me.created_at))) })));
    } catch (error) {
      // A player moved to another device (401): said, with nothing of theirs to move from here.
      if (error instanceof ApiError && error.status === 401) move.hidden = true;
      clear(card, errorNote(error, () => render()));
    }
  }

  return {
    el,
    show() {
      render();
      showStats();
    },
    destroy() {
      el.remove();
    },
  };
}

// Where a player's name shows, said wherever a name is asked for.
export const NAME_SHOWN = N_('Your name shows wherever other players see you: your friends’ lists and board, Friend Box results, series standings and the Daily Dice top list.');
const ASKED_MOST = 3; // a skipped question comes back on a later day, this many times at most

// A name, asked when a player without one makes, joins or plays a Friend Box or a series
// (optional: Not now, Escape or an empty name skip it), or before sharing or redeeming a
// friend code (required: friends know each other by name; Cancel leaves it undone).
// Skipped, it comes back on a later day at the next of those, three times at most: a
// player who said "not now" once is asked again, one who said it three times is left be
// (the Friends tab still offers the name field while there is none). Resolves once the
// question is closed: whether the player has a name now.
/**
 * @param {{required?: boolean, why?: string}} [options] why: a line saying what the name is for here
 * @returns {Promise<boolean>}
 */
export async function askName({ required = false, why } = {}) {
  const player = await ensurePlayer();
  if (player.name) return true;
  const asked = `nameAsked.${player.id}`;
  const today = todayIn(player.time_zone);
  const before = loadJSON(asked);
  // {times, day}: how often it was skipped, and the day it last was (`true`: once, long ago).
  const skipped = before === true ? { times: 1, day: '' } : { times: Number(before?.times) || 0, day: String(before?.day ?? '') };
  if (!required && (skipped.times >= ASKED_MOST || skipped.day === today)) return false;
  const titleId = uniqueId('name-prompt');
  const inputId = uniqueId('name-prompt-input');
  const input = h('input', { id: inputId, type: 'text', maxlength: '40', autocomplete: 'nickname', autofocus: true, required, 'aria-describedby': `${titleId}-help` });
  const note = h('div', { 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'primary' }, _('Save name'));
  const form = h('form', { class: 'name-prompt-form', novalidate: true },
    h('h2', { id: titleId }, _('What should your friends call you?')),
    h('p', { class: 'muted-text', id: `${titleId}-help` }, why ?? null, why ? ' ' : null, _(NAME_SHOWN), ' ', _('You can change it on the Account tab any time.')),
    h('div', { class: 'field' }, h('label', { for: inputId }, _('Name')), input),
    note,
    h('div', { class: 'actions' }, save, h('button', { type: 'button', class: 'secondary', onclick: () => dialog.close() }, required ? _('Cancel') : _('Not now'))));
  const dialog = h('dialog', { class: 'name-prompt', 'aria-labelledby': titleId, 'aria-describedby': `${titleId}-help` }, form);
  let named = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) {
      if (!required) {
        dialog.close();
        return;
      }
      input.setAttribute('aria-invalid', 'true');
      clear(note, errorNote(_('Enter a name, or Cancel.')));
      input.focus();
      return;
    }
    save.disabled = true;
    try {
      await changePlayer({ name });
      named = true;
      dialog.close();
    } catch (error) {
      clear(note, errorNote(error));
      input.focus();
    } finally {
      save.disabled = false;
    }
  });
  document.body.append(dialog);
  await new Promise((resolve) => {
    dialog.addEventListener('close', resolve, { once: true });
    dialog.showModal();
  });
  dialog.remove();
  if (!named && !required) saveJSON(asked, { times: skipped.times + 1, day: today });
  return named;
}
