// Every view on the two phones (360×740 and 390×844): axe-core finds no violation on any
// of them (the Daily Dice before, during and after its round, the statistics, Solo's setup,
// its round with the hint open and its result, Friends with the series form open and a
// friend's and a series' link opened, the name asked for, Friend Box before and after a
// box is made and its result, Account). Along the way, what a player touches and reads: the five tabs on one line each
// in all four languages; the number of every open tile at 4.5:1 or more against its tile,
// and a closed tile told from one of no use on this roll by more than colour; no grey tap
// highlight; the hint's options in view with the dice and their total above them, under a
// heading one level below the one before; one tile selected said as one tile; Easy's
// struck-through score explained; the statistics on the Daily Dice tab; Friend Box's "how
// to play" above "Open box", and "Make a box" gone once the box is made.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { artifacts, axe, baseUrl, check, contrast, insideViewport, LAPTOP, newPage, PHONE_360, PHONE_390, playRound, run, screenshot, view } from './lib.mjs';

const LANGUAGES = ['en', 'nb', 'nl', 'de'];
const SOLO_DEALS = JSON.parse(process.env.SHUTBOX_SOLO_DEALS || '{}');

// Each tab on one line inside the window, its name whole.
async function tabsOnOneLine(page, what) {
  const tabs = await page.locator('nav.tabs .tab').evaluateAll((links) => links.map((a) => {
    const range = document.createRange();
    range.selectNodeContents(a);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    const box = a.getBoundingClientRect();
    return { name: a.textContent, lines, clipped: a.scrollWidth > a.clientWidth + 1, left: box.left, right: box.right, height: box.height };
  }));
  const { width } = page.viewportSize();
  for (const tab of tabs) {
    check(tab.lines === 1 && !tab.clipped && tab.left >= 0 && tab.right <= width && tab.height >= 44, `${what}: the tab "${tab.name}" on one line, whole, inside the window, 44 px tall: ${JSON.stringify(tab)}`);
  }
}

async function switchLanguage(page, code) {
  await page.locator('#language').selectOption(code);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, code);
}

// Headings shown on the page, in order, never skip a level going down.
async function headingsInOrder(page, what) {
  const levels = await page.evaluate(() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
    .filter((el) => el.getClientRects().length)
    .map((el) => [Number(el.tagName[1]), el.textContent.trim().slice(0, 40)]));
  for (let i = 1; i < levels.length; i += 1) {
    check(levels[i][0] <= levels[i - 1][0] + 1, `${what}: "${levels[i][1]}" (h${levels[i][0]}) after "${levels[i - 1][1]}" (h${levels[i - 1][0]}) skips a level`);
  }
}

// The tiles as drawn: each one's state, its number's colour, every colour of its face
// (the background colour and the stops of its gradients or hatching), and its shape.
async function tileLooks(round) {
  return round.locator('.tile').evaluateAll((tiles) => tiles.map((t) => {
    const style = getComputedStyle(t);
    return {
      tile: Number(t.dataset.tile),
      state: t.classList.contains('closed') ? 'closed' : t.classList.contains('selected') ? 'selected' : t.classList.contains('muted') ? 'muted' : t.classList.contains('unfit') ? 'unfit' : 'usable',
      color: style.color,
      faces: [style.backgroundColor, ...(style.backgroundImage.match(/rgba?\([^)]*\)/g) ?? [])].filter((c) => !/rgba\([^)]*,\s*0\)$/.test(c)),
      backgroundImage: style.backgroundImage,
      boxShadow: style.boxShadow,
      opacity: style.opacity,
      filter: style.filter,
      tap: style.webkitTapHighlightColor,
    };
  }));
}

// Every open tile's number at 4.5:1 or more against each colour of its face, drawn at full
// opacity and unfiltered (what was measured is what is seen). A translucent stop (the
// hatching) is measured as it is drawn: over the tile's background colour.
function openTilesReadable(looks, what) {
  const channels = (color) => color.match(/[\d.]+/g).map(Number);
  const over = (stop, base) => {
    const [r, g, b, a = 1] = channels(stop);
    const [br, bg, bb] = channels(base);
    return `rgb(${r * a + br * (1 - a)}, ${g * a + bg * (1 - a)}, ${b * a + bb * (1 - a)})`;
  };
  for (const look of looks.filter((l) => l.state !== 'closed')) {
    check(look.opacity === '1' && look.filter === 'none', `${what}: tile ${look.tile} (${look.state}) drawn as measured: ${JSON.stringify(look)}`);
    const [base] = look.faces;
    check(base && channels(base)[3] === undefined, `${what}: tile ${look.tile} (${look.state}) has an opaque background colour: ${base}`);
    const faces = look.faces.map((face) => over(face, base));
    const least = Math.min(...faces.map((face) => contrast(look.color, face)));
    check(least >= 4.5, `${what}: tile ${look.tile} (${look.state}) number ${look.color} on ${faces.join(', ')}: ${least.toFixed(2)}:1, under 4.5:1`);
  }
}

// The "best" marks (a chip in the result, a badge in the hint) at 4.5:1 or more.
async function marksReadable(page, selector, what) {
  const marks = await view(page).locator(selector).evaluateAll((els) => els.map((el) => ({ text: el.textContent, color: getComputedStyle(el).color, background: getComputedStyle(el).backgroundColor })));
  for (const mark of marks) {
    const ratio = contrast(mark.color, mark.background);
    check(ratio >= 4.5, `${what}: "${mark.text}" ${mark.color} on ${mark.background}: ${ratio.toFixed(2)}:1, under 4.5:1`);
  }
  return marks.length;
}

async function call(method, route, token) {
  const headers = { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() };
  if (token) headers.Authorization = `Bearer ${token}`;
  const body = route === '/v1/players' ? { name: 'Cleo', time_zone: 'UTC' } : route === '/v1/series' ? { format: { kind: 'rounds', rounds: 3 } } : undefined;
  const answer = await fetch(`${baseUrl}${route}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  check(answer.ok, `${method} ${route}: ${answer.status}`);
  return answer.json();
}

async function viewsOn(browser, device, name) {
  const page = await newPage(browser, `views-${name}`, { ...device, locale: 'en-GB' });
  await page.goto('/play');
  const start = view(page).getByRole('button', { name: 'Start today’s round' });
  await start.waitFor();
  await axe(page, `${name}: Daily Dice, before its round`);

  // The tabs, in each language.
  for (const code of LANGUAGES) {
    await switchLanguage(page, code);
    await tabsOnOneLine(page, `${name}, ${code}`);
    if (code === 'de') await screenshot(page, `views-${name}-1-tabs-de`);
  }
  await switchLanguage(page, 'en');

  // The Daily Dice's round, and its result.
  await view(page).getByRole('button', { name: 'Start today’s round' }).click();
  const round = view(page).locator('.round');
  await round.waitFor();
  await page.waitForFunction((el) => el.dataset.phase !== 'start', await round.elementHandle());
  await axe(page, `${name}: Daily Dice, a roll`);
  await headingsInOrder(page, `${name}: Daily Dice, a roll`);
  await playRound(page);
  await view(page).locator('.result').waitFor({ timeout: 30000 });
  await axe(page, `${name}: Daily Dice, the result`);
  await marksReadable(page, '.result .chip', `${name}: the result's chips`);
  await headingsInOrder(page, `${name}: Daily Dice, the result`);
  // A struck-through score is one the player beat, and the result says so.
  const beaten = await view(page).locator('.computer-player.beaten').count();
  const legend = view(page).locator('.beaten-legend');
  check((await legend.count()) === (beaten ? 1 : 0), `${name}: the strike-through explained where there is one (${beaten} beaten)`);
  if (beaten) check((await legend.innerText()).includes('Struck through: a score you beat.'), `${name}: ${await legend.innerText()}`);
  await screenshot(page, `views-${name}-2-daily-result`);

  // The statistics, on the Daily Dice tab.
  const stats = view(page).locator('details.stats-details');
  await stats.locator('summary').click();
  await stats.locator('.stats .stat').first().waitFor();
  await axe(page, `${name}: the statistics on the Daily Dice tab`);

  // Solo: its setup, then a round on dice set in advance: 3 + 4, twice.
  await page.goto('/play#solo');
  await view(page).getByRole('button', { name: 'Roll the dice' }).waitFor();
  await axe(page, `${name}: Solo's setup`);
  const dealt = SOLO_DEALS['threes-and-fours'];
  check(dealt, 'the Solo deals: run through tests/system/browser/test_play.py');
  await page.evaluate((kept) => localStorage.setItem('shutbox.solo', JSON.stringify(kept)), { ...dealt, moves: [], hints: 0 });
  await page.reload();
  await round.waitFor();
  await page.waitForFunction((el) => el.dataset.phase === 'move', await round.elementHandle());
  // One tile that makes the 7: said as one tile.
  await round.locator('.tile[data-tile="7"]').click();
  await page.waitForFunction(() => document.querySelector('.round [aria-live="polite"].sr-only')?.textContent.length > 0);
  const said = await round.locator('[aria-live="polite"].sr-only').textContent();
  check(said === 'Tile 7 selected. Press Enter to close it.', `one tile selected: "${said}"`);
  await round.locator('.tile[data-tile="7"]').click(); // unselected
  // With 1 picked: usable, unfit, of no use (8 and 9) and selected side by side.
  await round.locator('.tile[data-tile="1"]').click();
  let looks = await tileLooks(round);
  check(new Set(looks.map((l) => l.state)).size === 4, `four states of open tiles: ${JSON.stringify(looks.map((l) => [l.tile, l.state]))}`);
  openTilesReadable(looks, `${name}, roll 1`);
  check(looks.every((l) => l.tap === 'rgba(0, 0, 0, 0)'), `${name}: no tap highlight on the tiles: ${looks[0].tap}`);
  // Close 1 + 6; on the next 3 + 4 the closed and the useless tiles side by side.
  await round.locator('.tile[data-tile="6"]').click();
  await round.getByRole('button', { name: 'Close 6+1' }).click();
  await page.waitForFunction((el) => el.querySelectorAll('.history li').length === 1 && el.dataset.phase === 'move', await round.elementHandle());
  looks = await tileLooks(round);
  openTilesReadable(looks, `${name}, roll 2`);
  const closed = looks.filter((l) => l.state === 'closed');
  const muted = looks.filter((l) => l.state === 'muted');
  check(closed.length === 2 && muted.length >= 1, `closed and useless tiles on roll 2: ${JSON.stringify(looks.map((l) => [l.tile, l.state]))}`);
  // Not by colour alone: a closed tile is sunk (an inset shadow), a useless one flat and hatched.
  check(closed.every((l) => l.boxShadow.includes('inset') && l.backgroundImage === 'none'), `${name}: closed tiles sunk: ${JSON.stringify(closed)}`);
  check(muted.every((l) => !l.boxShadow.includes('inset') && l.backgroundImage.includes('repeating-linear-gradient')), `${name}: useless tiles flat and hatched: ${JSON.stringify(muted)}`);
  await screenshot(page, `views-${name}-3-tiles`);

  // The hint: its best option in view with the dice and their total, the focus on it.
  await round.getByRole('button', { name: 'Hint' }).click();
  const best = round.locator('.hint-option.best');
  await best.waitFor();
  await page.waitForFunction((el) => document.activeElement === el, await best.elementHandle());
  for (const [part, locator] of [['the dice', round.locator('.dice')], ['the roll and its total', round.locator('.roll-text')], ['the best option', best]]) {
    check(await insideViewport(page, locator), `${name}: ${part} in view with the hint: ${JSON.stringify(await locator.boundingBox())}`);
  }
  check((await round.locator('.roll-text').innerText()) === '3 + 4 = 7', `the total read whole: ${await round.locator('.roll-text').innerText()}`);
  check((await marksReadable(page, '.hint-panel .badge', `${name}: the hint's badge`)) === 1, 'one "best" badge');
  await headingsInOrder(page, `${name}: Solo with the hint`);
  await axe(page, `${name}: Solo, a roll with the hint open`);
  await page.screenshot({ path: path.join(artifacts, `views-${name}-4-hint-window.png`) }); // the window alone, as seen
  await screenshot(page, `views-${name}-4-hint`);
  await playRound(page);
  await view(page).locator('.result').waitFor({ timeout: 30000 });
  await axe(page, `${name}: Solo, the result`);
  await headingsInOrder(page, `${name}: Solo, the result`);

  // Friends.
  await page.goto('/play#friends');
  await view(page).locator('.friends-board').waitFor();
  await view(page).locator('.friends-body :is(p, ul)').first().waitFor();
  await axe(page, `${name}: Friends`);
  await headingsInOrder(page, `${name}: Friends`);
  await view(page).locator('.series-make > summary').click();
  await view(page).getByRole('radio', { name: 'Elimination' }).check();
  await axe(page, `${name}: Friends, the series form unfolded`);
  // Another player's friend link and series link, opened here: each asks first.
  const cleo = await call('POST', '/v1/players');
  const friendCode = await call('POST', '/v1/players/me/friend-code', cleo.token);
  await page.goto(`/play#friend=${friendCode.display_code}`);
  await view(page).locator('.invite-panel').getByRole('button', { name: 'Become friends' }).waitFor();
  await axe(page, `${name}: Friends, a friend's link`);
  const series = await call('POST', '/v1/series', cleo.token);
  await page.goto(`/play#series=${series.display_code}`);
  await view(page).getByRole('button', { name: 'Join this series' }).waitFor();
  await axe(page, `${name}: Friends, a series' link`);

  // Friend Box: how to play it above the code and "Open box".
  await page.goto('/play#box');
  const openForm = view(page).locator('form.open-box');
  await openForm.waitFor();
  const [modesTop, codeTop] = await Promise.all([openForm.locator('fieldset.modes'), openForm.locator('.code-input')].map((l) => l.evaluate((el) => el.getBoundingClientRect().top)));
  check(modesTop < codeTop, `${name}: blind or target chosen above the code and "Open box" (${modesTop} < ${codeTop})`);
  await axe(page, `${name}: Friend Box`);
  const make = view(page).getByRole('button', { name: 'Make a box' });
  await make.click();
  // A player without a name is asked for one first.
  const prompt = page.locator('dialog.name-prompt');
  await prompt.waitFor();
  await axe(page, `${name}: the name asked for`);
  await prompt.locator('input').fill(`Player ${name}`);
  await page.keyboard.press('Enter');
  await view(page).locator('.created .box-code').waitFor();
  check(await make.isHidden(), `${name}: "Make a box" gone above "Your box is ready"`);
  await view(page).getByRole('button', { name: 'Make another box' }).waitFor();
  await axe(page, `${name}: Friend Box, a box made`);
  await screenshot(page, `views-${name}-5-box-made`);
  await view(page).getByRole('button', { name: 'Play it now' }).click();
  await playRound(page);
  await view(page).locator('.result').waitFor({ timeout: 30000 });
  await view(page).locator('.results-panel .results li').first().waitFor();
  await axe(page, `${name}: Friend Box, its result`);
  await headingsInOrder(page, `${name}: Friend Box, its result`);

  // Account.
  await page.goto('/play#account');
  await view(page).getByLabel('Name', { exact: true }).waitFor();
  await view(page).locator('.player-stats .stats-body > *').first().waitFor();
  await axe(page, `${name}: Account`);
  await screenshot(page, `views-${name}-6-account`);
  await page.context().close();
}

// On a laptop, by keyboard: the tabs on one line; Friend Box's form in the order it is
// read (how to play, the code, "Open box"); the statistics unfolded from the Daily Dice tab.
async function byKeyboard(browser) {
  const page = await newPage(browser, 'views-1280', { ...LAPTOP, locale: 'en-GB' });
  await page.goto('/play#box');
  await view(page).locator('form.open-box').waitFor();
  await tabsOnOneLine(page, '1280');
  await view(page).locator('h1').focus();
  const order = [];
  for (let i = 0; i < 3; i += 1) {
    await page.keyboard.press('Tab');
    order.push(await page.evaluate(() => {
      const el = document.activeElement;
      return el.type === 'radio' ? `radio ${el.value}` : el.tagName === 'INPUT' ? 'code' : el.textContent;
    }));
  }
  check(JSON.stringify(order) === JSON.stringify(['radio blind', 'code', 'Open box']), `Friend Box by keyboard: ${order}`);
  await page.goto('/play');
  const summary = view(page).locator('details.stats-details > summary');
  await summary.focus();
  await page.keyboard.press('Enter');
  await view(page).locator('details.stats-details .stats-body > *:not(.loading)').first().waitFor();
  await axe(page, '1280: the Daily Dice with the statistics');
  await screenshot(page, 'views-1280-statistics');
  await page.context().close();
}

await run(async (browser) => {
  await viewsOn(browser, PHONE_360, '360');
  await viewsOn(browser, PHONE_390, '390');
  await byKeyboard(browser);
});
