// @ts-check
// Friends: the player's friend code to share (a link that a friend opens to redeem it,
// once they say yes), a friend's code to redeem, the friends with their streaks (each
// can be removed, both ways), and today's friends' board: the Daily Dice scores of the
// player and their friends, shown once the player's own run of the day is in.
//
// Friends know each other by name, never as "Anonymous": sharing one's code or redeeming
// a friend's asks for a name first (a friend's link asks for it in the invitation itself,
// which names the code's owner), and the Friends tab offers the name field for as long
// as there is none. A friend without a name all the same (one made before, or by another
// client) is "Friend 2", by the order they became friends, so no two rows look alike.
import { askName, NAME_SHOWN } from './account.js';
import { api, ApiError, uuid } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { changePlayer, ensurePlayer, loadJSON, refreshPlayer, saveJSON, storedPlayer, todayIn } from './player.js';
import { copyButton } from './result.js';
import { seriesPanel } from './series.js';
import { _, formatDate, formatNumber } from './strings.js';
import { codeField, confirmStep, errorNote, loading, offerButtons, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */

/** @param {string} code */
function friendLink(code) {
  return `${location.origin}/play#friend=${encodeURIComponent(code)}`;
}

// The player's friend code, as last read or made here (shown at once; the server's, read
// on every visit, is the one that counts: another device may have made a new one).
/** @param {string} playerId */
function codeKey(playerId) {
  return `friendCode.${playerId}`;
}

/** @returns {import('./ui.js').View} */
export function friendsView() {
  // A friend's link, opened here: asked first.
  const invite = h('div', { class: 'invite' });

  // The player's name, offered while there is none.
  const nameId = uniqueId('friends-name');
  const nameInput = h('input', { id: nameId, type: 'text', maxlength: '40', autocomplete: 'nickname', 'aria-describedby': `${nameId}-help` });
  const nameNote = h('div', { 'aria-live': 'polite' });
  const nameForm = h('form', { class: 'panel name-panel', hidden: true, novalidate: true },
    h('h2', {}, _('Your name')),
    h('p', { class: 'muted-text', id: `${nameId}-help` }, _('Add your name so your friends know who you are.'), ' ', _(NAME_SHOWN)),
    h('div', { class: 'field' }, h('label', { for: nameId }, _('Name')),
      h('div', { class: 'inline' }, nameInput, h('button', { type: 'submit', class: 'primary' }, _('Save name')))),
    nameNote);
  nameForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = nameInput.value.trim();
    if (!name) {
      nameInput.focus();
      return;
    }
    try {
      await changePlayer({ name });
      nameForm.hidden = true;
      clear(nameNote);
      refresh();
    } catch (error) {
      clear(nameNote, errorNote(error));
    }
  });

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
    invite, nameForm, series.el, boardPanel, listPanel, codePanel, redeemForm); // a game night near the top, its forms folded

  let shown = 0; // the latest refresh: an older one's answers are not shown over it
  let inviting = false; // a friend's invitation asks the name itself: not asked twice on screen
  /** @type {Map<string, number>} each friend's place in the list, 1-based: a nameless one's label */
  let order = new Map();

  // A friend's name as the page shows it: never "Anonymous".
  /** @param {{id: string, name?: string | null}} friend */
  function friendName(friend) {
    if (friend.name) return friend.name;
    const place = order.get(friend.id);
    return place ? _('Friend {number}', { number: formatNumber(place) }) : _('A friend');
  }

  // A name, asked before what shares it with a friend; false: the player said no.
  /** @param {string} why */
  async function named(why) {
    const done = await askName({ required: true, why });
    if (done) nameForm.hidden = true;
    return done;
  }

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
      if (!(await named(_('Whoever redeems your code sees your name.')))) {
        clear(codeNote, h('p', { class: 'muted-text' }, _('Your friend code shares your name: add one to make a code.')));
        return;
      }
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
    if (!(await named(_('Your new friend sees your name.')))) throw new Error(_('Add your name to add a friend: friends know each other by name.'));
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

  // A friend's link: whose code it is, then friends once the player says yes (and, if
  // they have no name yet, gives one: the invitation asks for it, once).
  /** @param {string} code */
  async function offer(code) {
    const shownCode = code.trim().toUpperCase();
    const questionId = uniqueId('invite');
    // Answered: the page's address no longer asks again on a reload.
    const answered = () => history.replaceState(null, '', '#friends');
    const close = () => {
      answered();
      inviting = false;
      nameForm.hidden = Boolean(storedPlayer()?.name);
      clear(invite);
      /** @type {HTMLElement} */ (el.querySelector('h1')).focus();
    };
    const title = h('h2', { id: `${questionId}-title` }, _('A friend’s code'));
    clear(invite, h('section', { class: 'panel invite-panel', 'aria-labelledby': `${questionId}-title` }, title, loading()));
    /** @type {Schemas['FriendCodeShown']} */
    let shownOwner;
    try {
      await ensurePlayer();
      shownOwner = await api('GET', `/v1/friend-codes/${encodeURIComponent(code.trim())}`, { auth: true });
    } catch (error) {
      clear(invite, h('section', { class: 'panel invite-panel', 'aria-labelledby': `${questionId}-title` }, title, errorNote(error),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: close }, _('Close')))));
      return;
    }
    if (shownOwner.yours) {
      answered();
      clear(invite, h('section', { class: 'panel invite-panel', 'aria-labelledby': `${questionId}-title` }, title,
        h('p', {}, _('This is your own friend code: share it with a friend to redeem.')),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: close }, _('Close')))));
      return;
    }
    const owner = shownOwner.owner.name;
    // No name yet: asked here, as part of saying yes (friends know each other by name).
    const nameless = !storedPlayer()?.name;
    inviting = nameless;
    if (nameless) nameForm.hidden = true;
    const inputId = uniqueId('invite-name');
    const input = h('input', { id: inputId, type: 'text', maxlength: '40', autocomplete: 'nickname', required: true, 'aria-describedby': `${inputId}-help` });
    const inputNote = h('div', { class: 'form-error', 'aria-live': 'polite' });
    const nameField = nameless
      ? h('div', { class: 'field invite-name' },
        h('label', { for: inputId }, _('Your name')),
        input,
        inputNote,
        h('p', { class: 'field-help', id: `${inputId}-help` }, owner ? _('So {name} knows who you are.', { name: owner }) : _('So your friend knows who you are.'), ' ', _(NAME_SHOWN)))
      : null;
    const { yes, no, outcome } = offerButtons(questionId, _('Become friends'), async () => {
      if (nameless) {
        const name = input.value.trim();
        if (!name) {
          yes.disabled = false;
          clear(outcome);
          input.setAttribute('aria-invalid', 'true');
          clear(inputNote, errorNote(_('Enter your name first.')));
          input.focus();
          return;
        }
        input.removeAttribute('aria-invalid');
        clear(inputNote);
        await changePlayer({ name });
        inviting = false;
        nameForm.hidden = true;
      }
      const said = await redeem(code);
      answered();
      clear(invite, h('div', { class: 'panel invite-done' }, h('p', { class: 'good', role: 'status' }, said)));
      listTitle.focus({ preventScroll: false });
    }, close);
    input.addEventListener('keydown', (event) => { // Enter in the name says yes, as in a form
      if (event.key === 'Enter' && !yes.disabled) {
        event.preventDefault();
        yes.click();
      }
    });
    clear(invite, h('section', { class: 'panel invite-panel', 'aria-labelledby': `${questionId}-title` },
      title,
      h('p', { id: questionId }, owner
        ? _('{name} invites you to be friends (code {code}). You will see each other’s names, streaks and Daily Dice scores.', { name: owner, code: shownOwner.display_code })
        : _('Become friends with the owner of the code {code}? You will see each other’s names, streaks and Daily Dice scores.', { code: shownCode })),
      nameField,
      h('div', { class: 'actions' }, yes, no),
      outcome));
    (nameless ? input : yes).focus(); // after the tab's heading has had the focus
  }

  /** @param {Schemas['FriendWithStreak']} friend */
  function friendRow(friend) {
    const name = friendName(friend);
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
    order = new Map(list.map((friend, at) => [friend.id, at + 1]));
    clear(listBody, list.length
      ? h('ul', { class: 'friend-list' }, list.map(friendRow))
      : h('p', { class: 'muted-text' }, _('No friends yet: share your code, or add a friend’s.')));
  }

  // Not played today yet: the board is refused until then (403), so not asked for.
  /** @param {number} mine the refresh asking */
  function playFirst(mine) {
    if (mine !== shown) return;
    clear(boardBody,
      h('p', {}, _('Play today’s Daily Dice first: your friends’ scores show once yours is in.')),
      h('button', { type: 'button', class: 'primary', onclick: () => { location.hash = '#daily'; } }, _('Play today’s Daily Dice')));
  }

  /**
   * @param {string} day today's Daily Dice date, as the Daily Dice tab has it
   * @param {number} mine the refresh asking
   * @param {Promise<unknown>} listed the friends, read first: a nameless one's label
   */
  async function showBoard(day, mine, listed) {
    try {
      /** @type {Schemas['FriendsBoard']} */
      const board = await api('GET', `/v1/daily/${day}/friends`, { auth: true });
      await listed;
      if (mine !== shown) return;
      const others = board.players.filter((entry) => !entry.me).length;
      clear(boardBody,
        h('ol', { class: 'results board' }, board.players.map((entry) => h('li', { class: entry.me ? 'is-you' : null, 'data-rank': entry.rank },
          h('span', { class: 'results-rank' }, formatNumber(entry.rank)),
          h('span', { class: 'results-name' }, entry.me ? entry.name ?? _('You') : friendName(entry)),
          h('span', { class: 'results-score' }, formatNumber(entry.score), entry.shut ? h('span', { class: 'chip chip-best' }, _('shut')) : null),
          entry.me ? h('span', { class: 'chip chip-you' }, _('you')) : null))),
        others ? null : h('p', { class: 'muted-text' }, _('None of your friends has played today’s Daily Dice yet.')));
    } catch (error) {
      if (mine !== shown) return;
      if (error instanceof ApiError && error.is('leaderboard-hidden')) {
        playFirst(mine);
        return;
      }
      clear(boardBody, errorNote(error, refresh));
    }
  }

  // The player's friend code as the server has it now (made on any device); none: 404.
  /**
   * @param {string} playerId
   * @param {number} mine the refresh asking
   */
  async function readCode(playerId, mine) {
    try {
      /** @type {Schemas['FriendCode']} */
      const code = await api('GET', '/v1/players/me/friend-code', { auth: true });
      saveJSON(codeKey(playerId), code);
      if (mine === shown) showCode(code);
    } catch (error) {
      if (mine !== shown) return;
      if (!(error instanceof ApiError && error.is('no-friend-code'))) {
        clear(codeNote, errorNote(error));
        return;
      }
      saveJSON(codeKey(playerId), null);
      showCode(null);
    }
  }

  async function refresh() {
    shown += 1;
    const mine = shown;
    try {
      const { player, me } = await refreshPlayer();
      if (mine !== shown) return;
      nameForm.hidden = Boolean(player.name) || inviting;
      showCode(loadJSON(codeKey(player.id)));
      const day = todayIn(player.time_zone);
      boardDate.textContent = formatDate(day);
      const listed = showFriends(mine).catch((error) => {
        if (mine === shown) clear(listBody, errorNote(error, refresh));
      });
      const code = readCode(player.id, mine);
      await Promise.all([listed, code, me.streak.played_today ? showBoard(day, mine, listed) : playFirst(mine)]);
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
