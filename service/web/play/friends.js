// @ts-check
// Friends: the player's friend code to share (a link that a friend opens to redeem it,
// once they say yes), a friend's code to redeem, the friends with their streaks (each
// can be removed, both ways), and today's friends' board: the Daily Dice scores of the
// player and their friends, shown once the player's own run of the day is in.
import { api, ApiError, uuid } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { ensurePlayer, loadJSON, refreshPlayer, saveJSON, todayIn } from './player.js';
import { copyButton } from './result.js';
import { seriesPanel } from './series.js';
import { _, formatDate, formatNumber } from './strings.js';
import { codeField, confirmStep, errorNote, loading, offerButtons, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */

/** @param {string} code */
function friendLink(code) {
  return `${location.origin}/play#friend=${encodeURIComponent(code)}`;
}

// The server never shows a friend code again (a new one replaces the last): the one made
// on this browser is kept, per player, and shown until a new one is made.
/** @param {string} playerId */
function codeKey(playerId) {
  return `friendCode.${playerId}`;
}

/** @returns {import('./ui.js').View} */
export function friendsView() {
  // A friend's link, opened here: asked first.
  const invite = h('div', { class: 'invite' });

  // Today's board.
  const boardTitle = uniqueId('friends-board');
  const boardDate = h('p', { class: 'date-line' });
  const boardBody = h('div', { class: 'board-body', 'aria-live': 'polite' }, loading());
  const boardPanel = h('section', { class: 'panel friends-board', 'aria-labelledby': boardTitle },
    h('h2', { id: boardTitle }, _('Today’s friends’ board')), boardDate, boardBody);

  // The friends.
  const listTitle = h('h2', { tabindex: '-1' }, _('Your friends'));
  const listNote = h('div', { 'aria-live': 'polite' });
  const listBody = h('div', { class: 'friends-body' }, loading());
  const listPanel = h('section', { class: 'panel friends' }, listTitle, listNote, listBody);

  // The player's own code.
  const ownCode = h('div', { class: 'friend-code', 'aria-live': 'polite' });
  const codeNote = h('div', { 'aria-live': 'polite' });
  const makeButton = h('button', { type: 'button', class: 'primary' }, _('Make a friend code'));
  const codePanel = h('section', { class: 'panel own-code' },
    h('h2', {}, _('Your friend code')),
    h('p', { class: 'muted-text' }, _('Whoever redeems it becomes your friend: you see each other’s names, streaks and Daily Dice scores.')),
    ownCode,
    makeButton,
    h('p', { class: 'field-help' }, _('A new code replaces the one before, which stops working. Your friends stay your friends.')),
    codeNote);

  // A friend's code.
  const { field: codeEntry, onCode } = codeField({
    id: uniqueId('friend-code'), label: _('Friend’s code'), button: _('Add friend'), help: _('Like 7M3Q-K2ZD2. Case, spaces and dashes don’t matter.'),
  });
  const redeemNote = h('div', { 'aria-live': 'polite' });
  const redeemForm = h('form', { class: 'panel redeem', novalidate: true },
    h('h2', {}, _('Add a friend')), codeEntry, redeemNote);

  // Series: rounds played together.
  const series = seriesPanel();

  const el = h('section', { class: 'view view-friends' },
    viewHeader(_('Friends'), _('Play the Daily Dice together: share your friend code, follow your friends’ streaks and see how they did today.')),
    invite, boardPanel, listPanel, codePanel, redeemForm, series.el);

  let shown = 0; // the latest refresh: an older one's answers are not shown over it

  /** @param {Schemas['FriendCode'] | null} code */
  function showCode(code) {
    makeButton.textContent = code ? _('Make a new code') : _('Make a friend code');
    makeButton.className = code ? 'secondary' : 'primary'; // not the first thing to tap beside a code to share
    if (!code) {
      clear(ownCode);
      return;
    }
    const link = friendLink(code.display_code);
    clear(ownCode,
      h('p', { class: 'box-code', 'data-code': code.display_code }, code.display_code),
      h('p', { class: 'box-link friend-link' }, h('a', { href: link }, link)),
      h('div', { class: 'actions' }, copyButton(() => code.display_code, _('Copy code')), copyButton(() => link, _('Copy link'))));
  }

  // A code shown is a link friends may still be opening: a new one is asked for twice.
  const confirmNew = confirmStep({
    question: _('Make a new code? The code and link above stop working, also for friends you have sent them to and who have not opened them yet.'),
    yes: _('Yes, make a new code'),
    no: _('Keep this code'),
    act: () => makeCode(),
  });
  makeButton.after(confirmNew.el);
  makeButton.addEventListener('click', () => {
    if (ownCode.childElementCount) confirmNew.ask(makeButton);
    else makeCode();
  });

  async function makeCode() {
    makeButton.disabled = true;
    clear(codeNote);
    try {
      const player = await ensurePlayer();
      /** @type {Schemas['FriendCode']} */
      const code = await api('POST', '/v1/players/me/friend-code', { auth: true });
      saveJSON(codeKey(player.id), code);
      showCode(code);
    } catch (error) {
      clear(codeNote, errorNote(error));
    } finally {
      makeButton.disabled = false;
    }
  }

  // Redeem a friend's code: what to tell the player (the API's problem is thrown).
  /**
   * @param {string} code
   * @returns {Promise<string>}
   */
  async function redeem(code) {
    await ensurePlayer();
    // The friends before, to tell a new friend from one already (201 and 200 alike).
    /** @type {Schemas['FriendWithStreak'][]} */
    const before = await api('GET', '/v1/friends', { auth: true });
    const known = new Set(before.map((friend) => friend.id));
    /** @type {Schemas['Friend']} */
    const friend = await api('POST', '/v1/friends', { body: /** @satisfies {Schemas['Redeem']} */ ({ code }), auth: true, idempotencyKey: uuid() });
    refresh();
    if (known.has(friend.id)) return friend.name ? _('You and {name} are friends already.', { name: friend.name }) : _('You are friends already.');
    return friend.name ? _('You and {name} are friends now.', { name: friend.name }) : _('You have a new friend.');
  }

  onCode(redeemForm, async (code) => {
    clear(redeemNote);
    const said = await redeem(code);
    clear(redeemNote, h('p', { class: 'good' }, said));
  });

  // A friend's link: become friends once the player says yes.
  /** @param {string} code */
  async function offer(code) {
    const shownCode = code.trim().toUpperCase();
    const questionId = uniqueId('invite');
    // Answered: the page's address no longer asks again on a reload.
    const answered = () => history.replaceState(null, '', '#friends');
    const { yes, no, outcome } = offerButtons(questionId, _('Become friends'), async () => {
      const said = await redeem(code);
      answered();
      clear(invite, h('div', { class: 'panel invite-done' }, h('p', { class: 'good', role: 'status' }, said)));
      listTitle.focus({ preventScroll: false });
    }, () => {
      answered();
      clear(invite);
      /** @type {HTMLElement} */ (el.querySelector('h1')).focus();
    });
    clear(invite, h('section', { class: 'panel invite-panel', 'aria-labelledby': `${questionId}-title` },
      h('h2', { id: `${questionId}-title` }, _('A friend’s code')),
      h('p', { id: questionId }, _('Become friends with the owner of the code {code}? You will see each other’s names, streaks and Daily Dice scores.', { code: shownCode })),
      h('div', { class: 'actions' }, yes, no),
      outcome));
    await ensurePlayer().catch(() => null);
    yes.focus(); // after the tab's heading has had the focus
  }

  /** @param {Schemas['FriendWithStreak']} friend */
  function friendRow(friend) {
    const name = friend.name ?? _('Anonymous');
    const actions = h('span', { class: 'friend-actions' });
    const remove = h('button', { type: 'button', class: 'secondary small-button', 'aria-label': _('Remove {name}', { name }) }, _('Remove'));
    const keep = () => {
      clear(actions, remove);
      remove.focus();
    };
    remove.addEventListener('click', () => {
      const questionId = uniqueId('remove');
      const yes = h('button', { type: 'button', class: 'primary small-button', 'aria-describedby': questionId }, _('Yes, remove'));
      const no = h('button', { type: 'button', class: 'secondary small-button', onclick: keep }, _('Keep'));
      yes.addEventListener('click', async () => {
        yes.disabled = true;
        no.disabled = true;
        try {
          await api('DELETE', `/v1/friends/${encodeURIComponent(friend.id)}`, { auth: true });
          clear(listNote, h('p', { class: 'good' }, _('{name} is no longer your friend.', { name })));
        } catch (error) {
          clear(listNote, errorNote(error));
        }
        listTitle.focus();
        refresh();
      });
      clear(actions, h('span', { class: 'confirm-text', id: questionId }, _('Remove {name} from your friends? Neither of you will see the other’s scores.', { name })), yes, no);
      yes.focus();
    });
    actions.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !actions.contains(remove)) {
        event.preventDefault();
        keep();
      }
    });
    actions.append(remove);
    return h('li', { class: 'friend', 'data-friend': friend.id },
      h('span', { class: 'friend-name' }, name),
      h('span', { class: 'friend-streak' }, _('Streak: {current} (best {best})', { current: formatNumber(friend.streak.current), best: formatNumber(friend.streak.best) })),
      actions);
  }

  /** @param {number} mine the refresh asking */
  async function showFriends(mine) {
    /** @type {Schemas['FriendWithStreak'][]} */
    const list = await api('GET', '/v1/friends', { auth: true });
    if (mine !== shown) return;
    clear(listBody, list.length
      ? h('ul', { class: 'friend-list' }, list.map(friendRow))
      : h('p', { class: 'muted-text' }, _('No friends yet: share your code, or add a friend’s.')));
  }

  /**
   * @param {string} day today's Daily Dice date, as the Daily Dice tab has it
   * @param {number} mine the refresh asking
   */
  async function showBoard(day, mine) {
    try {
      /** @type {Schemas['FriendsBoard']} */
      const board = await api('GET', `/v1/daily/${day}/friends`, { auth: true });
      if (mine !== shown) return;
      const others = board.players.filter((entry) => !entry.me).length;
      clear(boardBody,
        h('ol', { class: 'results board' }, board.players.map((entry) => h('li', { class: entry.me ? 'is-you' : null, 'data-rank': entry.rank },
          h('span', { class: 'results-rank' }, formatNumber(entry.rank)),
          h('span', { class: 'results-name' }, entry.name ?? _('Anonymous')),
          h('span', { class: 'results-score' }, formatNumber(entry.score), entry.shut ? h('span', { class: 'chip chip-best' }, _('shut')) : null),
          entry.me ? h('span', { class: 'chip chip-you' }, _('you')) : null))),
        others ? null : h('p', { class: 'muted-text' }, _('None of your friends has played today’s Daily Dice yet.')));
    } catch (error) {
      if (mine !== shown) return;
      if (error instanceof ApiError && error.is('leaderboard-hidden')) {
        clear(boardBody,
          h('p', {}, _('Play today’s Daily Dice first: your friends’ scores show once yours is in.')),
          h('button', { type: 'button', class: 'primary', onclick: () => { location.hash = '#daily'; } }, _('Play today’s Daily Dice')));
        return;
      }
      clear(boardBody, errorNote(error, refresh));
    }
  }

  async function refresh() {
    shown += 1;
    const mine = shown;
    try {
      const { player } = await refreshPlayer();
      if (mine !== shown) return;
      showCode(loadJSON(codeKey(player.id)));
      const day = todayIn(player.time_zone);
      boardDate.textContent = formatDate(day);
      const listed = showFriends(mine).catch((error) => {
        if (mine === shown) clear(listBody, errorNote(error, refresh));
      });
      await Promise.all([listed, showBoard(day, mine)]);
    } catch (error) {
      if (mine !== shown) return;
      clear(boardBody, errorNote(error, refresh));
      clear(listBody);
    }
  }

  return {
    el,
    show(params = {}) {
      refresh();
      if (params.code) offer(params.code);
      series.show(params.series);
    },
    destroy() {
      series.destroy();
      el.remove();
    },
  };
}
