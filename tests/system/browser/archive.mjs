// The archive and the statistics. A new player's Account tab says there are no figures
// yet; after today's Daily Dice the statistics show one run played (its score in the
// chart). In the Daily Dice tab, a date still open is refused before any dice are shown,
// and an earlier date that has ended everywhere (SHUTBOX_ARCHIVE_DATE: the test gave it
// official runs of synthetic players) is played as practice on the Daily Dice's screen:
// the result says it is practice and where it would have ranked, as the API has it, and
// it heads the practice runs, paged with "More". The statistics still count one run.
// Last, a browser whose clock runs two days ahead offers a date the server has not
// closed: the server's 422 detail is shown, with the run kept to send again.
import { check, newPage, pageModule, playRound, run, screenshot, text, view } from './lib.mjs';

const archiveDate = process.env.SHUTBOX_ARCHIVE_DATE;
check(/^\d{4}-\d{2}-\d{2}$/.test(archiveDate ?? ''), `SHUTBOX_ARCHIVE_DATE is a date: ${archiveDate}`);
const DAY = 86400000;

/** @param {string} day @param {number} days */
function addDays(day, days) {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

async function storedPlayer(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
}

// A legal practice run of a date through the API (the first legal set each roll), as
// another device of the same player would send it: to fill the practice list.
async function practiseByApi(page, authorization, day) {
  const daily = await (await page.request.get(`/v1/daily/${day}`)).json();
  let open = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  const moves = [];
  for (const roll of daily.dice) {
    const answer = await page.request.post('/v1/moves', { data: { open, roll } });
    check(answer.ok(), `POST /v1/moves (${answer.status()})`);
    const { sets } = await answer.json();
    if (!sets.length) break;
    moves.push(sets[0]);
    open = open.filter((tile) => !sets[0].includes(tile));
    if (!open.length) break;
  }
  const sent = await page.request.post(`/v1/daily/${day}/practice`, { data: { moves }, headers: { Authorization: authorization } });
  check(sent.status() === 201, `a practice run of ${day} (${sent.status()}: ${await sent.text()})`);
}

await run(async (browser) => {
  const page = await newPage(browser, 'archive');

  // No runs yet: the statistics say so.
  await page.goto('/play#account');
  const stats = view(page).locator('.player-stats');
  await stats.getByText('No official Daily Dice run yet').waitFor();
  const player = await storedPlayer(page);
  const authorization = `Bearer ${player.token}`;

  // Today's Daily Dice, then the statistics: one run.
  await page.getByRole('link', { name: 'Daily Dice' }).click();
  await view(page).getByRole('button', { name: 'Start today’s round' }).click();
  await playRound(page, { keyboard: true });
  await view(page).locator('.result').waitFor({ timeout: 20000 });
  const score = Number(await text(page, '.hero-value'));
  await page.getByRole('link', { name: 'Account' }).click();
  await stats.locator('.stat.played').waitFor();
  const figures = await (await page.request.get('/v1/players/me/stats', { headers: { Authorization: authorization } })).json();
  check(figures.played === 1 && figures.mean_score === score, `the API's figures: ${JSON.stringify(figures)}`);
  check((await stats.locator('.stat.played .stat-value').innerText()) === '1', 'played 1');
  check((await stats.locator('.stat.shut-rate .stat-value').innerText()) === (score === 0 ? '100%' : '0%'), 'the shut rate as a percentage');
  check((await stats.locator('.stat.mean-score .stat-value').innerText()) === String(score), 'the mean score');
  check((await stats.locator('.stat.mean-best-possible .stat-value').innerText()) === String(figures.mean_best_possible), 'the mean best possible');
  check((await stats.locator('.stat.mean-cost .stat-value').innerText()) === String(figures.mean_cost), 'the mean cost');
  check(/1 day/.test(await stats.locator('.stat.streak').innerText()), 'the streak');
  const bars = stats.locator('.score-chart .bar-column');
  check((await bars.count()) === score + 1, `one bar a score from 0 to ${score}`);
  const counted = await bars.evaluateAll((items) => items.filter((li) => li.dataset.count !== '0').map((li) => [li.dataset.score, li.querySelector('.bar').style.height]));
  check(JSON.stringify(counted) === JSON.stringify([[String(score), '100%']]), `the bar of the score played: ${JSON.stringify(counted)}`);
  check((await stats.locator('.score-chart .sr-only li').allInnerTexts()).join() === `Score ${score}: 1 run`, 'the chart in words');
  await screenshot(page, 'archive-1-stats');

  // Practice runs from another device of the player, to page through.
  for (let back = 1; back <= 10; back += 1) await practiseByApi(page, authorization, addDays(archiveDate, -back));

  // The archive, in the Daily Dice tab: the last date it offers, and a date still open refused.
  await page.getByRole('link', { name: 'Daily Dice' }).click();
  const archive = view(page).locator('.archive');
  const picker = archive.getByLabel('Date', { exact: true });
  await picker.waitFor();
  const latest = await picker.getAttribute('max');
  check(latest >= archiveDate && latest < (await page.evaluate(() => new Date().toISOString().slice(0, 10))), `the picker ends at the last closed date: ${latest}`);
  const today = await page.evaluate(() => new Date().toISOString().slice(0, 10));
  await picker.fill(today);
  await archive.getByRole('button', { name: 'Play this date' }).click();
  await archive.locator('.form-error .error').filter({ hasText: 'has not ended everywhere yet' }).waitFor();
  check((await picker.getAttribute('aria-invalid')) === 'true', 'the date marked invalid');
  check((await view(page).locator('.view-body .result').count()) === 1, 'today’s result still shown, no round started');
  const list = archive.locator('.practice-list .practice-run');
  await list.nth(9).waitFor();

  // The archive date as practice, with the keyboard.
  await picker.fill(archiveDate);
  await picker.press('Enter');
  const round = view(page).locator('.round');
  await round.waitFor();
  check((await text(page, '.date-line')).startsWith('Practice:'), `the date line says practice: ${await text(page, '.date-line')}`);
  // Nothing says official while practising: the view's line says practice, today's notes
  // are gone, and the practice label stays in view as the page scrolls.
  const intro = await text(page, '.intro');
  check(!intro.includes('One official try') && intro.includes('not official'), `the view's line: ${intro}`);
  check((await view(page).locator('.today-line').innerText()).trim() === '', 'no note of today');
  const label = view(page).locator('.date-line');
  const labelTop = await label.evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const scrolled = await page.evaluate(() => window.scrollY);
  const stays = await label.evaluate((el) => el.getBoundingClientRect().top);
  check(scrolled > labelTop && stays >= 0 && stays < 100, `the practice label in view when scrolled ${scrolled} px past it (${labelTop}): at ${stays}`);
  await screenshot(page, 'archive-2-practice-scrolled');
  await playRound(page, { keyboard: true });
  const result = view(page).locator('.view-body .result');
  await result.waitFor({ timeout: 20000 });
  check((await result.locator('.result-title').innerText()) === 'Your practice result', 'the result is titled practice');
  check((await text(page, '.practice-note')).includes('not official, no streak'), 'labelled as practice');
  check((await result.locator('.stat.streak').count()) === 0 && (await result.locator('.stat.rank').count()) === 0, 'no streak, no rank');
  check((await view(page).locator('.share').count()) === 0, 'no share text');
  const kept = await (await page.request.get('/v1/players/me/practice?limit=1', { headers: { Authorization: authorization } })).json();
  check(kept.length === 1 && kept[0].date === archiveDate, `the practice run kept: ${JSON.stringify(kept)}`);
  const rank = kept[0].would_rank;
  check(rank.players > 1, `the date's official runs counted: ${JSON.stringify(rank)}`);
  const shownRank = await text(page, '.stat.would-rank');
  const note = await page.evaluate(([url, r]) => import(url).then((m) => m.rankNote(r, true)), [await pageModule(page, 'result.js'), rank]);
  check(/would have ranked/i.test(shownRank) && shownRank.includes(`${rank.position} of ${rank.players}`) && shownRank.includes(note) && !/\b0%/.test(shownRank),
    `would have ranked: ${shownRank} (${JSON.stringify(rank)})`);
  check(Number(await text(page, '.hero-value')) === kept[0].score, 'the score kept');
  await screenshot(page, 'archive-2-practice-result');

  // The practice runs: this date first, ten a page, "More" for the rest.
  await list.first().filter({ hasText: 'would have ranked' }).waitFor();
  check((await list.first().getAttribute('data-date')) === archiveDate, 'the date practised heads the list');
  await list.nth(9).waitFor();
  check((await list.count()) === 10, `a page of ten: ${await list.count()}`);
  check((await list.first().innerText()).includes(`would have ranked ${rank.position} of ${rank.players}`), 'its would-be rank');
  const more = archive.getByRole('button', { name: 'More' });
  await more.click();
  await list.nth(10).waitFor();
  check((await list.count()) === 11 && (await list.nth(10).getAttribute('data-date')) === addDays(archiveDate, -10), 'the next page');
  // A date nobody played officially: no "would have ranked 1 of 1" on its row.
  const alone = await list.nth(10).innerText();
  check(alone.includes('nobody played it officially') && !alone.includes('would have ranked'), `a date of no official run: ${alone}`);
  await more.waitFor({ state: 'hidden' });
  check(await list.nth(10).evaluate((el) => el === document.activeElement), 'the focus on the row the last page brought');
  await screenshot(page, 'archive-3-practice-list');

  // A shared link to a date that has ended, not played officially by this player: its
  // dice as practice, and a result that has no rank to compare with rather than "1 of 1".
  const unplayed = addDays(archiveDate, -11);
  await page.goto(`/play#daily=${unplayed}`);
  await round.waitFor();
  check((await text(page, '.date-line')).startsWith('Practice:'), 'the link opens the date as practice');
  await playRound(page);
  await result.waitFor({ timeout: 20000 });
  const lonely = await text(page, '.stat.would-rank');
  check(lonely.includes('Nobody played this date officially') && !/\d+ of \d+/.test(lonely), `alone on the date: ${lonely}`);
  await screenshot(page, 'archive-3-practice-alone');

  // Back to today's Daily Dice; the statistics still count the one official run.
  await view(page).getByRole('button', { name: 'Back to today’s Daily Dice' }).click();
  await view(page).locator('.view-body .note').filter({ hasText: 'You have played today' }).waitFor();
  await page.getByRole('link', { name: 'Account' }).click();
  await stats.locator('.stat.played .stat-value').filter({ hasText: /^1$/ }).waitFor();

  // A browser two days ahead: it offers a date the server has not closed, whose detail shows.
  const ahead = await newPage(browser, 'clock ahead');
  await ahead.clock.setFixedTime(new Date(Date.now() + 2 * DAY));
  await ahead.goto('/play');
  const early = view(ahead).locator('.archive').getByLabel('Date', { exact: true });
  await early.waitFor();
  await early.fill(today);
  await early.press('Enter');
  await playRound(ahead);
  const refused = view(ahead).locator('.view-body .error');
  await refused.filter({ hasText: 'still open somewhere on Earth' }).waitFor({ timeout: 20000 });
  await refused.getByRole('button', { name: 'Try again' }).waitFor();
  const progress = await ahead.evaluate(() => Object.keys(localStorage).filter((key) => key.includes('progress.practice.')));
  check(progress.length === 1, `the run kept to send again: ${progress}`);
  await screenshot(ahead, 'archive-4-not-closed');
});
