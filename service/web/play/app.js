// Shut the Box Challenge in a browser: a hash router over four views (Daily Dice,
// Friend Box, Solo, Account) that talk to this origin's /v1 API.
import { accountView } from './account.js';
import { useToken } from './api.js';
import { boxView } from './box.js';
import { dailyView } from './daily.js';
import { h, svg } from './dom.js';
import { forgetPlayer, token } from './player.js';
import { soloView } from './solo.js';
import { setLanguage, t } from './strings.js';

setLanguage('en');
useToken(token);

const ROUTES = ['daily', 'box', 'solo', 'account'];
const views = new Map();

function resetViews({ keepAccount = false } = {}) {
  for (const [name, view] of views) {
    if (keepAccount && name === 'account') continue;
    view.destroy();
    views.delete(name);
  }
}

const factories = {
  daily: dailyView,
  box: boxView,
  solo: soloView,
  account: () => accountView({ onClaimed: () => resetViews({ keepAccount: true }) }),
};

function logo() {
  return svg('svg', { class: 'logo', viewBox: '0 0 64 64', 'aria-hidden': 'true', focusable: 'false' },
    svg('rect', { x: 4, y: 14, width: 56, height: 40, rx: 8, class: 'logo-box' }),
    [0, 1, 2].map((i) => svg('rect', i === 1
      ? { x: 27, y: 36, width: 10, height: 10, rx: 2, class: 'logo-tile shut' }
      : { x: 12 + i * 15, y: 22, width: 10, height: 24, rx: 2, class: 'logo-tile' })));
}

const nav = h('nav', { class: 'tabs', 'aria-label': t('nav.label') },
  ROUTES.map((name) => h('a', { href: `#${name}`, class: 'tab', 'data-view': name }, t(`nav.${name}`))));
const banner = h('div', { class: 'banner', role: 'alert', hidden: true },
  h('p', {}, t('error.tokenGone')),
  h('button', {
    type: 'button',
    class: 'primary',
    onclick: () => {
      forgetPlayer();
      banner.hidden = true;
      resetViews();
      route();
    },
  }, t('error.newPlayer')));
const main = h('main', { id: 'main', class: 'main' }, banner);

document.getElementById('app').replaceChildren(
  h('header', { class: 'top' },
    h('div', { class: 'brand' }, logo(), h('div', {}, h('p', { class: 'brand-name' }, t('app.title')), h('p', { class: 'brand-tagline' }, t('app.tagline')))),
    nav),
  main,
  h('footer', { class: 'foot' }, h('p', {}, t('footer.rules'))));

window.addEventListener('shutbox:unauthorized', () => {
  banner.hidden = false;
});

function parseHash() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  const box = hash.match(/^box=(.+)$/);
  if (box) return { name: 'box', code: box[1] };
  return { name: ROUTES.includes(hash) ? hash : 'daily' };
}

function route({ focus = false } = {}) {
  const { name, code } = parseHash();
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!views.has(name)) {
    const view = factories[name]();
    views.set(name, view);
    main.append(view.el);
  }
  for (const [other, view] of views) view.el.hidden = other !== name;
  const view = views.get(name);
  document.title = `${t(`nav.${name}`)} · ${t('app.title')}`;
  view.show({ code });
  if (focus) view.el.querySelector('h1')?.focus({ preventScroll: true });
}

window.addEventListener('hashchange', () => route({ focus: true }));
route();
