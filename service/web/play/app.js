// @ts-check
// Shut the Box Challenge in a browser: a hash router over five views (Daily Dice with
// its archive, Friends, Friend Box, Solo, Account with the player's statistics) that
// talk to this origin's /v1 API, in the player's language (English, Norwegian bokmål,
// Dutch or German: the browser's, or the one chosen with the switcher in the header and
// kept on this browser). The Daily Dice' modules come with the page; another view's
// when its tab is first opened (the first load on a slow network waits for fewer files),
// and, once the Daily Dice is on the screen, ahead of that.
import { useToken } from './api.js';
import { dailyView } from './daily.js';
import { clear, h, svg } from './dom.js';
import { changePlayer, forgetPlayer, storedPlayer, token } from './player.js';
import { _, LANGUAGES, language, N_, preferredLanguage, rememberLanguage, useLanguage } from './strings.js';
import { errorNote, loading } from './ui.js';

/** @typedef {import('./ui.js').View} View */
/** @typedef {'daily' | 'friends' | 'box' | 'solo' | 'account'} Route */

useToken(token);
try {
  await useLanguage(preferredLanguage());
} catch (error) {
  console.warn(`${error instanceof Error ? error.message : error}: the page stays in English`);
}

/** @type {readonly Route[]} */
const ROUTES = ['daily', 'friends', 'box', 'solo', 'account'];
const TITLES = { daily: N_('Daily Dice'), friends: N_('Friends'), box: N_('Friend Box'), solo: N_('Solo'), account: N_('Account') };
/** @type {Map<Route, View>} */
const views = new Map();

function resetViews({ keepAccount = false } = {}) {
  for (const [name, view] of views) {
    if (keepAccount && name === 'account') continue;
    view.destroy();
    views.delete(name);
  }
}

/** @type {Record<Route, () => Promise<() => View>>} each view's maker, its module imported first */
const factories = {
  daily: async () => dailyView,
  friends: async () => (await import('./friends.js')).friendsView,
  box: async () => (await import('./box.js')).boxView,
  solo: async () => (await import('./solo.js')).soloView,
  account: async () => {
    const { accountView } = await import('./account.js');
    return () => accountView({ onClaimed: () => {
      signedOut = false; // a player claimed here: signed in again
      banner.hidden = true;
      resetViews({ keepAccount: true });
    } });
  },
};

// The other views' modules, fetched once the Daily Dice has its first stage on the screen
// (daily.js says so: shutbox:ready), so that their tabs open at once later.
window.addEventListener('shutbox:ready', () => {
  for (const name of ROUTES) factories[name]().catch(() => {}); // a failure shows when its tab is opened
}, { once: true });

function logo() {
  return svg('svg', { class: 'logo', viewBox: '0 0 64 64', 'aria-hidden': 'true', focusable: 'false' },
    svg('rect', { x: 4, y: 14, width: 56, height: 40, rx: 8, class: 'logo-box' }),
    [0, 1, 2].map((i) => svg('rect', i === 1
      ? { x: 27, y: 36, width: 10, height: 10, rx: 2, class: 'logo-tile shut' }
      : { x: 12 + i * 15, y: 22, width: 10, height: 24, rx: 2, class: 'logo-tile' })));
}

let signedOut = false; // this browser's token was refused: the banner stays until acted on
const main = h('main', { id: 'main', class: 'main' });
// The frame's parts, made by build() before anything else reads them.
/** @type {HTMLElement} */
let nav;
/** @type {HTMLElement} */
let banner;
/** @type {HTMLElement} */
let switcher;

// Four choices, each in its own language; the views are built again in the new one.
function languageSwitcher() {
  const select = h('select', { id: 'language', class: 'language-select', autocomplete: 'off' },
    LANGUAGES.map((choice) => h('option', { value: choice.code, lang: choice.code, selected: choice.code === language() }, choice.name)));
  select.addEventListener('change', () => changeLanguage(select.value));
  return h('div', { class: 'language' },
    h('label', { for: 'language', class: 'language-label' }, globe(), h('span', { class: 'language-word' }, _('Language'))),
    select);
}

function globe() {
  return svg('svg', { class: 'globe', viewBox: '0 0 24 24', 'aria-hidden': 'true', focusable: 'false' },
    svg('circle', { cx: 12, cy: 12, r: 9 }),
    svg('path', { d: 'M3 12h18M12 3c2.5 2.6 3.8 5.6 3.8 9s-1.3 6.4-3.8 9c-2.5-2.6-3.8-5.6-3.8-9S9.5 5.6 12 3z' }));
}

// To the account's transfer code field: a code from the device the player is on now.
function enterCode() {
  const focus = () => /** @type {HTMLElement | null} */ (main.querySelector('.view-account form .code-input'))?.focus();
  if (parseHash().name === 'account') focus();
  else {
    window.addEventListener('hashchange', () => routing.then(focus), { once: true }); // once route() has built the view
    location.hash = '#account';
  }
}

// The page's frame (header, tabs, banner, footer) in the current language.
function build() {
  nav = h('nav', { class: 'tabs', 'aria-label': _('Game modes') },
    ROUTES.map((name) => h('a', { href: `#${name}`, class: 'tab', 'data-view': name }, _(TITLES[name]))));
  banner = h('div', { class: 'banner', role: 'alert', hidden: !signedOut },
    h('p', {}, _('This device’s player has moved to another device (a transfer code was used there). Start as a new player here, or enter a transfer code to bring a player back.')),
    h('div', { class: 'actions' }, h('button', {
      type: 'button',
      class: 'primary',
      onclick: () => {
        forgetPlayer();
        signedOut = false;
        banner.hidden = true;
        resetViews();
        route();
      },
    }, _('Start as a new player')),
    h('button', { type: 'button', class: 'secondary', onclick: enterCode }, _('I have a transfer code'))));
  switcher = languageSwitcher();
  main.prepend(banner);
  /** @type {HTMLElement} */ (document.getElementById('app')).replaceChildren(
    h('header', { class: 'top' },
      h('div', { class: 'brand' }, logo(),
        h('div', { class: 'brand-text' }, h('p', { class: 'brand-name' }, _('Shut the Box Challenge')), h('p', { class: 'brand-tagline' }, _('Close the tiles, beat the dice.'))),
        switcher),
      nav),
    main,
    h('footer', { class: 'foot' }, h('p', {}, _('Close open tiles that add up to the roll. When no tiles fit, the turn ends: your score is what stays open. Lowest wins; 0 shuts the box.'))));
}

/** @param {string} code */
async function changeLanguage(code) {
  const select = /** @type {HTMLSelectElement} */ (switcher.querySelector('select'));
  select.disabled = true;
  let spoken;
  try {
    spoken = await useLanguage(code);
  } catch (error) {
    console.warn(`${error instanceof Error ? error.message : error}: the page stays as it is`);
    select.value = language();
    select.disabled = false;
    return;
  }
  rememberLanguage(spoken);
  // The player's language, for what the server writes without being asked in one.
  if (storedPlayer()) changePlayer({ language: spoken }).catch(() => {});
  banner.remove();
  resetViews();
  build();
  route();
  switcher.querySelector('select')?.focus();
}

window.addEventListener('shutbox:unauthorized', () => {
  signedOut = true;
  banner.hidden = false;
});

/** @returns {{name: Route, code?: string, series?: string, date?: string}} */
function parseHash() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  const daily = hash.match(/^daily=(\d{4}-\d{2}-\d{2})$/); // a shared result's date
  if (daily) return { name: 'daily', date: daily[1] };
  const box = hash.match(/^box=(.+)$/);
  if (box) return { name: 'box', code: box[1] };
  const series = hash.match(/^series=(.+)$/);
  if (series) return { name: 'friends', series: series[1] };
  const friend = hash.match(/^friend=(.+)$/);
  if (friend) return { name: 'friends', code: friend[1] };
  return { name: ROUTES.find((name) => name === hash) ?? 'daily' };
}

// The Friend Box tab leads back to the box in the address (#box=CODE) while one is open:
// set on a route to it, and when the box view puts a box in the address (shutbox:address).
function boxTab() {
  const { name, code } = parseHash();
  if (name === 'box') nav.querySelector('a[data-view="box"]')?.setAttribute('href', code ? `#box=${encodeURIComponent(code)}` : '#box');
}

let routes = 0; // the latest route: an earlier one whose module came late stops
const pending = h('div', { class: 'view-pending' });
main.append(pending);

/** @param {{focus?: boolean}} [options] focus: the view's heading */
async function route({ focus = false } = {}) {
  const { name, code, series, date } = parseHash();
  routes += 1;
  const mine = routes;
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  boxTab();
  if (!views.has(name)) {
    /** @type {() => View} */
    let make;
    try {
      const coming = factories[name]();
      clear(pending, loading()); // shown while its module comes, if it has to
      make = await coming;
    } catch (error) {
      if (mine === routes) clear(pending, errorNote(error, () => route({ focus })));
      return;
    }
    clear(pending);
    if (mine !== routes) return;
    if (!views.has(name)) {
      const view = make();
      views.set(name, view);
      main.append(view.el);
    }
  }
  clear(pending);
  for (const [other, view] of views) view.el.hidden = other !== name;
  const view = /** @type {View} */ (views.get(name));
  const title = _(TITLES[name]);
  const app = _('Shut the Box Challenge');
  document.title = `${title} · ${app}`;
  view.show({ code, series, date });
  if (focus) view.el.querySelector('h1')?.focus({ preventScroll: true });
}

build();
/** @type {Promise<void>} the latest route, until its view is shown */
let routing = Promise.resolve();
window.addEventListener('hashchange', () => {
  routing = route({ focus: true });
});
window.addEventListener('shutbox:address', boxTab);
route();
