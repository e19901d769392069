// @ts-check
// Account: the player's name and time zone, their statistics, and moving the player to
// another device.
import { api } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { browserTimeZone, changePlayer, claim, ensurePlayer, offerTransfer, refreshPlayer } from './player.js';
import { renderStats } from './stats.js';
import { _, formatDate, formatNumber, formatTime } from './strings.js';
import { errorNote, loading, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */

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
        h('p', { class: 'muted-text small' }, _('Valid until {time}. Shown once: a new code replaces it.', { time: formatTime(offer.expires_at) })));
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
    clear(statsBody, loading());
    try {
      await ensurePlayer();
      /** @type {Schemas['PlayerStats']} */
      const stats = await api('GET', '/v1/players/me/stats', { auth: true });
      clear(statsBody, renderStats(stats));
    } catch (error) {
      clear(statsBody, errorNote(error, showStats));
    }
  }

  async function render() {
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
        h('p', { class: 'field-help', id: `${nameId}-help` }, _('Shown to friends on Friend Box results. Up to 40 characters.')), nameNote);
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
      const zone = browserTimeZone();
      const zoneNote = h('div', { 'aria-live': 'polite' });
      const useZone = zone !== player.time_zone
        ? h('button', {
          type: 'button',
          class: 'secondary',
          onclick: async () => {
            try {
              await changePlayer({ time_zone: zone });
              render();
            } catch (error) {
              clear(zoneNote, errorNote(error));
            }
          },
        }, _('Use this device’s time zone ({zone})', { zone }))
        : null;
      clear(card,
        h('h2', {}, _('Your player')),
        nameForm,
        h('div', { class: 'field' },
          h('span', { class: 'label' }, _('Time zone')),
          h('p', { class: 'zone' }, player.time_zone),
          h('p', { class: 'field-help' }, _('Your Daily Dice day follows it. It can change once in 24 hours.')),
          useZone, zoneNote),
        h('p', { class: 'muted-text' }, _('Streak: {current} (best {best})', { current: formatNumber(me.streak.current), best: formatNumber(me.streak.best) })),
        h('p', { class: 'muted-text small' }, _('Playing since {date}', { date: formatDate(me.created_at.slice(0, 10)) })));
    } catch (error) {
      clear(card, errorNote(error, render));
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
