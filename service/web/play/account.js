// Account: the player's name and time zone, and moving the player to another device.
import { clear, h, uniqueId } from './dom.js';
import { browserTimeZone, changePlayer, claim, ensurePlayer, offerTransfer, refreshPlayer } from './player.js';
import { formatDate, formatTime, t } from './strings.js';
import { errorNote, loading, viewHeader } from './ui.js';

export function accountView({ onClaimed }) {
  const card = h('div', { class: 'panel player-card', 'aria-live': 'polite' });

  // Move to another device: a one-time code.
  const codeArea = h('div', { class: 'transfer-code', 'aria-live': 'polite' });
  const getCode = h('button', { type: 'button', class: 'primary' }, t('account.getCode'));
  getCode.addEventListener('click', async () => {
    getCode.disabled = true;
    clear(codeArea, loading());
    try {
      const offer = await offerTransfer();
      clear(codeArea,
        h('p', { class: 'muted-text' }, t('account.codeIs')),
        h('p', { class: 'box-code', 'data-code': offer.display_code }, offer.display_code),
        h('p', { class: 'muted-text small' }, t('account.codeExpires', { time: formatTime(offer.expires_at) })));
    } catch (error) {
      clear(codeArea, errorNote(error));
    } finally {
      getCode.disabled = false;
    }
  });
  const move = h('section', { class: 'panel' },
    h('h2', {}, t('account.moveTitle')), h('p', { class: 'muted-text' }, t('account.moveHelp')), getCode, codeArea);

  // I have a code.
  const claimId = uniqueId('claim');
  const claimInput = h('input', { id: claimId, type: 'text', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', maxlength: '64', class: 'code-input' });
  const claimNote = h('div', { 'aria-live': 'polite' });
  const claimForm = h('form', { class: 'panel' },
    h('h2', {}, t('account.haveCode')),
    h('p', { class: 'muted-text' }, t('account.haveCodeHelp')),
    h('div', { class: 'field' }, h('label', { for: claimId }, t('account.transferCode')),
      h('div', { class: 'inline' }, claimInput, h('button', { type: 'submit', class: 'primary' }, t('account.claim')))),
    claimNote);
  claimForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!claimInput.value.trim()) return;
    clear(claimNote, loading());
    try {
      const player = await claim(claimInput.value.trim());
      claimInput.value = '';
      clear(claimNote, h('p', { class: 'good' }, t('account.claimed', { name: player.name ? `, ${player.name}` : '' })));
      onClaimed();
      render();
    } catch (error) {
      clear(claimNote, errorNote(error));
    }
  });

  const el = h('section', { class: 'view view-account' }, viewHeader(t('account.title'), t('account.intro')), card, move, claimForm);

  async function render() {
    clear(card, loading());
    try {
      await ensurePlayer();
      const { player, me } = await refreshPlayer();
      const nameId = uniqueId('name');
      const nameInput = h('input', { id: nameId, type: 'text', maxlength: '40', autocomplete: 'nickname', value: player.name ?? '', 'aria-describedby': `${nameId}-help` });
      const nameNote = h('div', { 'aria-live': 'polite' });
      const nameForm = h('form', { class: 'field' },
        h('label', { for: nameId }, t('account.name')),
        h('div', { class: 'inline' }, nameInput, h('button', { type: 'submit', class: 'secondary' }, t('account.saveName'))),
        h('p', { class: 'field-help', id: `${nameId}-help` }, t('account.nameHelp')), nameNote);
      nameForm.addEventListener('submit', async (event) => {
        event.preventDefault();
        try {
          const value = nameInput.value.trim();
          await changePlayer({ name: value || null });
          clear(nameNote, h('p', { class: 'good' }, t('account.saved')));
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
        }, t('account.useZone', { zone }))
        : null;
      clear(card,
        h('h2', {}, t('account.player')),
        nameForm,
        h('div', { class: 'field' },
          h('span', { class: 'label' }, t('account.zone')),
          h('p', { class: 'zone' }, player.time_zone),
          h('p', { class: 'field-help' }, t('account.zoneHelp')),
          useZone, zoneNote),
        h('p', { class: 'muted-text' }, t('account.streak', { current: me.streak.current, best: me.streak.best })),
        h('p', { class: 'muted-text small' }, t('account.since', { date: formatDate(me.created_at.slice(0, 10)) })));
    } catch (error) {
      clear(card, errorNote(error, render));
    }
  }

  return {
    el,
    show() {
      render();
    },
    destroy() {
      el.remove();
    },
  };
}
