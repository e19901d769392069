// A whole Daily Dice through the page: a new player, today's dice one roll at a time,
// every move typed on the keyboard, the official run submitted, then the result: score,
// rank, streak, analysis, the computer players and the share text; a reload shows the
// stored result instead of a new round.
import { check, newPage, pageModule, playRound, run, screenshot, text, view } from './lib.mjs';

await run(async (browser) => {
  const page = await newPage(browser, 'daily', { timezoneId: 'Pacific/Auckland' });
  await page.goto('/play');
  const start = page.getByRole('button', { name: 'Start today’s round' });
  await start.waitFor();

  const player = await page.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
  check(player?.token?.length === 43 && /^[A-Za-z0-9_-]+$/.test(player.token), `a token made in the page: ${JSON.stringify(player)}`);
  check(player.time_zone === 'Pacific/Auckland', `the browser's time zone: ${player.time_zone}`);

  await start.focus();
  await page.keyboard.press('Enter');
  const round = view(page).locator('.round');
  await round.waitFor();
  // One roll at a time: the dice of the current roll only, never the later ones.
  check((await round.locator('.dice .die').count()) === 2, 'two dice shown');
  check(/^\d \+ \d = \d+$/.test(await text(page, '.roll-text')), 'the roll as text');
  const live = await round.locator('[aria-live]').first().getAttribute('aria-live');
  check(live === 'polite', 'rolls announced in a live region');
  await screenshot(page, 'daily-1-round');

  const rolls = await playRound(page, { keyboard: true });
  check(rolls >= 1, 'played at least one roll');
  await screenshot(page, 'daily-2-round-over');

  const result = view(page).locator('.result');
  await result.waitFor({ timeout: 20000 });
  await view(page).locator('.share-text').filter({ hasText: 'Shut the Box Challenge' }).waitFor();

  // The page shows what the server stored.
  const day = await page.evaluate(() => new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland' }).format(new Date()));
  const official = await page.request.get(`/v1/daily/${day}/runs/me`, { headers: { Authorization: `Bearer ${player.token}` } });
  check(official.ok(), `the official run is stored (${official.status()})`);
  const run = await official.json();
  check(Number(await text(page, '.hero-value')) === run.score, `score shown ${await text(page, '.hero-value')} = ${run.score}`);
  const rank = await text(page, '.stat.rank');
  // Its note in words (alone, first, tied...: phone.mjs checks the words of each case).
  const note = await page.evaluate(([url, r]) => import(url).then((m) => m.rankNote(r)), [await pageModule(page, 'result.js'), run.rank]);
  check(rank.includes(`${run.rank.position} of ${run.rank.players}`) && rank.includes(note) && !/\b0%/.test(rank), `rank: ${rank} (${JSON.stringify(run.rank)}: ${note})`);
  const streak = await text(page, '.stat.streak');
  check(/1 day/.test(streak) && /Best 1/.test(streak), `streak: ${streak}`);
  check(Number(await text(page, '.best-possible .stat-value')) === run.analysis.best_possible, 'best possible');
  check((await text(page, '.total-cost .stat-value')) === (run.analysis.total_cost ? String(run.analysis.total_cost) : 'nothing'), 'total cost');
  check((await view(page).locator('.moves .move').count()) === run.analysis.moves.length, 'one line per analysed move');
  const costly = run.analysis.moves.filter((m) => m.hindsight_cost > 0).length;
  check((await view(page).locator('.moves .move.costly').count()) === costly, 'the costly choices highlighted');
  for (const level of ['easy', 'medium', 'hard']) {
    const shown = await text(page, `.computer-player[data-player="${level}"] .computer-score`);
    check(Number(shown) === run.computer[level].score, `${level} scored ${run.computer[level].score}, shown ${shown}`);
  }
  const share = await text(page, '.share-text');
  check(share.startsWith('Shut the Box Challenge') && (run.shut || share.includes(String(run.score))), `share text: ${share}`);
  await screenshot(page, 'daily-3-result');

  // The copy button (the clipboard may be refused headless: then the fallback says so).
  await view(page).locator('.share').getByRole('button', { name: 'Copy' }).click();
  await view(page).locator('.copy-status').filter({ hasText: /Copied|Copy failed/ }).waitFor();

  // Played already: a reload shows the stored result, no new round.
  await page.reload();
  await view(page).locator('.result').waitFor();
  check((await view(page).locator('.round').count()) === 0, 'no second round');
  check((await text(page, '.note')).includes('You have played today'), 'the note says it was played');
  check(Number(await text(page, '.hero-value')) === run.score, 'the same score after a reload');
  await screenshot(page, 'daily-4-played-already');
});
