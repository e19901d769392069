// A player's first Daily Dice on a phone (issue #42): at 360x740, a new player sees how to
// play before today's first roll (the steps, what "Score now 45" means) and plays a
// practice round that does not spend the official try; then today's round, whose result
// offers its share near the top (the share sheet here: the Web Share API, stubbed to see
// what it is given) with a link that opens the game on that date, and what to play next.
// The link opened again shows the result; opened by a new player at 390x844, it offers
// that date's round, how to play first. "Got it" folds how to play for good. On both
// phones: Solo's "Roll the dice" in view with the rules folded, and "Make a new code" asks.
import { axe, baseUrl, check, newPage, playRound, run, screenshot, setName, text, view } from './lib.mjs';

const SMALL = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const TALL = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

/** Whether element a comes before element b in the page. */
async function before(page, a, b) {
  const first = await a.elementHandle();
  const second = await b.elementHandle();
  return page.evaluate(([x, y]) => Boolean(x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING), [first, second]);
}

async function token(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')).token);
}

await run(async (browser) => {
  const anna = await newPage(browser, 'anna', SMALL);
  await anna.addInitScript(() => {
    navigator.share = async (data) => {
      window.shared = data;
    };
  });
  await anna.goto('/play');

  // How to play, open and on the first screen, before the start button.
  const howTo = view(anna).locator('.howto');
  await howTo.getByRole('heading', { name: 'How to play' }).waitFor();
  const start = view(anna).getByRole('button', { name: 'Start today’s round' });
  await start.waitFor();
  check(await howTo.evaluate((el) => el.open), 'how to play is open for a new player');
  check(await before(anna, howTo, start), 'how to play comes before the start button');
  const top = (await howTo.boundingBox()).y;
  check(top < SMALL.viewport.height / 2, `how to play on the first screen (at ${top} px)`);
  const steps = await howTo.innerText();
  check(steps.includes('Score now 45') && steps.includes('the open tiles added up'), `"Score now 45" explained: ${steps}`);
  check(/Lowest wins/.test(steps) && /one official try/.test(steps), 'the rules and the one official try');
  await screenshot(anna, 'first-try-1-how-to-play-360');

  // A practice round: the official start steps aside, and nothing official is spent.
  await howTo.getByRole('button', { name: 'Try a practice round' }).click();
  const practice = howTo.locator('.round');
  await practice.waitFor();
  check(await howTo.locator('.practice-flag').isVisible(), 'the practice round says it counts for nothing');
  check(!(await start.isVisible()), 'today’s start button steps aside during practice');
  await screenshot(anna, 'first-try-2-practice-360');
  await playRound(anna);
  await howTo.locator('.note').filter({ hasText: 'Practice over' }).waitFor({ timeout: 20000 });
  await start.waitFor();
  const day = await anna.evaluate(() => new Date().toISOString().slice(0, 10)); // the context is in UTC
  const headers = { Authorization: `Bearer ${await token(anna)}` };
  const none = await anna.request.get(`/v1/daily/${day}/runs/me`, { headers });
  check(none.status() === 404, `no official run after the practice (${none.status()})`);

  // Today's round: how to play folds away.
  await start.click();
  await view(anna).locator('.view-body .round').waitFor();
  check(!(await howTo.evaluate((el) => el.open)), 'how to play folded once the official round began');
  await playRound(anna);
  const result = view(anna).locator('.result');
  await result.waitFor({ timeout: 20000 });

  // The share, near the top: before the analysis, within the result's first screens.
  const share = result.locator('.share');
  const link = `${baseUrl}/play#daily=${day}`;
  await share.locator('.share-text').filter({ hasText: link }).waitFor();
  check(await before(anna, share, result.locator('.analysis')), 'the share comes before the analysis');
  const shareTop = (await share.boundingBox()).y - (await result.boundingBox()).y;
  check(shareTop < SMALL.viewport.height, `the share within the result's first screen (${shareTop} px down)`);
  const shown = await text(anna, '.share-text');
  check(shown.startsWith('Shut the Box Challenge') && shown.endsWith(link), `the share text ends with the link: ${shown}`);
  await share.getByRole('button', { name: 'Share', exact: true }).click();
  const shared = await anna.waitForFunction(() => window.shared).then((handle) => handle.jsonValue());
  check(shared.text === shown, `the share sheet given the text with its link: ${JSON.stringify(shared)}`);
  // What next: a Solo round, a box for a friend.
  const next = result.locator('.next');
  check((await next.getByRole('link', { name: 'Play a Solo round' }).getAttribute('href')) === '#solo', 'a Solo round next');
  check((await next.getByRole('link', { name: 'Make a box for a friend' }).getAttribute('href')) === '#box', 'a box for a friend next');
  await screenshot(anna, 'first-try-3-result-360');

  // The link opens the game on that date: for Anna, her result.
  await anna.goto('about:blank'); // the link opened afresh, as from a message
  await anna.goto(link);
  await view(anna).locator('.result').waitFor();
  check((await view(anna).locator('.round').count()) === 0, 'no round: the result of that date');
  check(Number(await text(anna, '.hero-value')) === Number(await result.locator('.hero-value').getAttribute('data-score')), 'her score');

  // For Ben, new, on a taller phone: how to play, then that date's round.
  const ben = await newPage(browser, 'ben', TALL);
  await ben.goto(link);
  const benHowTo = view(ben).locator('.howto');
  await benHowTo.getByRole('heading', { name: 'How to play' }).waitFor();
  await view(ben).getByRole('button', { name: 'Start today’s round' }).waitFor();
  const dateLine = await text(ben, '.date-line');
  check(dateLine === await ben.evaluate((d) => new Intl.DateTimeFormat('en', { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${d}T00:00:00Z`)), day), `that date: ${dateLine}`);
  await screenshot(ben, 'first-try-4-link-new-player-390');
  await benHowTo.getByRole('button', { name: 'Got it' }).click();
  check(!(await benHowTo.evaluate((el) => el.open)), 'folded');
  await ben.reload();
  await view(ben).getByRole('button', { name: 'Start today’s round' }).waitFor();
  check(!(await benHowTo.evaluate((el) => el.open)), 'still folded after a reload');
  const overflow = await ben.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scrolling (${overflow}px too wide)`);
  await screenshot(ben, 'first-try-5-folded-390');

  // What next, on each phone: a Solo round starts from "Roll the dice" in view, the rules
  // folded; a friend code is not replaced by one tap.
  for (const [page, size, height] of [[anna, 360, SMALL.viewport.height], [ben, 390, TALL.viewport.height]]) {
    await page.getByRole('link', { name: 'Solo', exact: true }).click();
    const roll = view(page).getByRole('button', { name: 'Roll the dice' });
    await roll.waitFor();
    const box = await roll.boundingBox();
    check(box.y + box.height <= height, `Roll the dice in view at ${size} px (${JSON.stringify(box)})`);
    check((await view(page).locator('select:visible').count()) === 0, `no drop-down before the rules at ${size} px`);
    await screenshot(page, `first-try-6-solo-setup-${size}`);
    await setName(page, size === 360 ? 'Anna' : 'Ben'); // a friend code asks for a name first
    await page.getByRole('link', { name: 'Friends', exact: true }).click();
    await view(page).getByRole('button', { name: 'Make a friend code' }).click();
    await view(page).locator('.friend-code .box-code').waitFor();
    await view(page).getByRole('button', { name: 'Make a new code' }).click();
    const keep = view(page).getByRole('button', { name: 'Keep this code' });
    await keep.waitFor();
    check(await keep.evaluate((el) => el === document.activeElement), `the focus on keeping the code at ${size} px`);
    const kept = await keep.boundingBox();
    check(kept.x + kept.width <= size, `the question fits at ${size} px`);
    await screenshot(page, `first-try-7-new-code-asked-${size}`);
    await axe(page, `the new code's question at ${size} px`);
  }
});
