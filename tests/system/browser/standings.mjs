// A game night's standings on phones: an elimination series (limit 300) of four players,
// Anna and Ben with Easy and Hard, six rounds in. Anna has played six, Ben five: round 6
// is the one the table waits on. Anna reads it in German on a 360 px phone, Ben in English
// on a 390 px one, Anna again on a laptop by keyboard. Every total is inside the window,
// the rows are in order of place, who has played round 6 and who has not yet is marked
// (never a "0" for a score not shown), and what is left before the limit is shown; the
// earlier rounds are a button away on a phone, all there on a laptop. The series sits near
// the top of the Friends tab, its "make a series" form folded away under it, its number
// fields a finger's size. The rounds are played through the API (the page's own rules
// engine picks the moves): the page is only read here.
import { randomUUID } from 'node:crypto';
import { diceChoices, legalSets, moveOut, startPosition } from '../../../service/web/play/rules.js';
import { axe, baseUrl, check, insideViewport, LAPTOP, newPage, PHONE_360, PHONE_390, run, screenshot, view } from './lib.mjs';

const LIMIT = 300; // above six rounds of the worst score (45): nobody out yet
const TOUCH = 44;

async function call(method, path, { token, body } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body) headers['Content-Type'] = 'application/json';
  if (method === 'POST') headers['Idempotency-Key'] = randomUUID();
  const answer = await fetch(`${baseUrl}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await answer.text();
  check(answer.ok, `${method} ${path}: ${answer.status} ${text}`);
  return JSON.parse(text);
}

// A legal run of a round's dice: two dice while allowed, each roll the set that closes the
// highest tiles (highest: true) or the lowest.
function aRun(rules, dice, highest) {
  let open = startPosition(rules);
  const moves = [];
  for (const roll of dice) {
    if (open === 0) break;
    const count = diceChoices(rules, open).includes(2) ? 2 : 1;
    const sets = legalSets(rules, open, roll, count);
    const closed = sets.length ? (highest ? Math.max(...sets) : Math.min(...sets)) : -1;
    if (closed < 0) {
      if (count === 1) moves.push({ dice: 1, tiles: [] });
      break;
    }
    moves.push(moveOut(closed, count));
    open ^= closed;
  }
  return moves;
}

async function playRounds(player, code, rounds, highest = true) {
  for (let n = 0; n < rounds; n += 1) {
    const series = await call('GET', `/v1/series/${code}`, { token: player.token });
    check(series.next, `${player.name} has a round to play (${n + 1})`);
    await call('POST', `/v1/series/${code}/rounds/${series.next.round}/runs`, { token: player.token, body: { moves: aRun(series.rules, series.next.dice, highest) } });
  }
}

// The standings as the page shows them, in its order.
async function shownRows(page) {
  const rows = view(page).locator('.series-current .standings tbody tr');
  await rows.first().waitFor();
  return rows.evaluateAll((trs) => trs.map((tr) => ({
    seat: Number(tr.dataset.seat),
    place: Number(tr.querySelector('td.standings-place').textContent),
    total: tr.querySelector('.standings-total').dataset.total === undefined ? null : Number(tr.querySelector('.standings-total').dataset.total),
    totalText: tr.querySelector('.standings-total').textContent,
    left: tr.querySelector('td.standings-left')?.textContent ?? null,
    marks: Object.fromEntries([...tr.querySelectorAll('td.round-score')].map((td) => [td.dataset.round, td.dataset.mark])),
    // What the eye reads in the current round's cell (not the words for a screen reader).
    current: (() => {
      const td = tr.querySelector('td.round-score.current');
      return td ? (td.querySelector('[aria-hidden="true"]') ?? td).textContent.trim() : null;
    })(),
  })));
}

// The page's rows against the API's series: in order of place (out last), every seat,
// each total the sum of the scores shown, what is left before the limit, and each round's
// mark (its score, played but not shown yet, not yet, or nothing for a seat out).
async function checkRows(page, series, who) {
  const rows = await shownRows(page);
  check(rows.length === series.players.length, `${who}: a row a seat`);
  const bySeat = new Map(series.players.map((p) => [p.seat, p]));
  const counted = (p) => p.rounds.slice(0, series.rounds_complete).reduce((a, s) => a + (s ?? 0), 0);
  for (let i = 1; i < rows.length; i += 1) {
    const [a, b] = [bySeat.get(rows[i - 1].seat), bySeat.get(rows[i].seat)];
    const key = (p) => [p.out ? 1 : 0, counted(p)];
    const [ka, kb] = [key(a), key(b)];
    check(ka[0] < kb[0] || (ka[0] === kb[0] && ka[1] <= kb[1]), `${who}: rows in order of place: ${JSON.stringify(rows)}`);
    check(rows[i - 1].place <= rows[i].place && (rows[i - 1].place === rows[i].place) === (ka[0] === kb[0] && ka[1] === kb[1]), `${who}: places ${JSON.stringify(rows.map((r) => r.place))}`);
  }
  for (const row of rows) {
    const p = bySeat.get(row.seat);
    const shown = p.rounds.filter((s) => s !== null);
    check(shown.length ? row.total === p.total : row.total === null && !/\d/.test(row.totalText), `${who}: seat ${row.seat}'s total ${row.totalText} (${p.total} over ${shown.length} rounds shown)`);
    const left = p.out ? '—out' : String(Math.max(0, LIMIT - p.total)); // a seat out: "—" (to a screen reader, "out")
    check(row.left === left, `${who}: seat ${row.seat}: ${row.left} left before ${LIMIT} (total ${p.total}), not ${left}`);
    p.rounds.forEach((score, i) => {
      const wanted = score !== null ? 'score' : p.out ? 'none' : p.played >= i + 1 ? 'played' : 'waiting';
      check(row.marks[String(i + 1)] === wanted, `${who}: seat ${row.seat}, round ${i + 1}: ${row.marks[String(i + 1)]}, not ${wanted}`);
    });
  }
  return rows;
}

// Every total (and the current round's cell) inside the window, none cut off by the table's scrolling.
async function totalsInView(page, who, { currentRound = true } = {}) {
  const cells = view(page).locator('.series-current .standings tbody td.standings-total');
  const count = await cells.count();
  await cells.first().scrollIntoViewIfNeeded();
  for (let i = 0; i < count; i += 1) {
    const cell = cells.nth(i);
    await cell.scrollIntoViewIfNeeded();
    check(await insideViewport(page, cell), `${who}: total ${i + 1} inside the window: ${JSON.stringify(await cell.boundingBox())} in ${JSON.stringify(page.viewportSize())}`);
    const clipped = await cell.evaluate((td) => {
      const region = td.closest('.table-scroll').getBoundingClientRect();
      const box = td.getBoundingClientRect();
      return box.left < region.left - 0.5 || box.right > region.right + 0.5;
    });
    check(!clipped, `${who}: total ${i + 1} not hidden by the table's scrolling`);
  }
  // The round being played too, whole: who has played it is read at a glance.
  const cut = await view(page).locator('.series-current .standings .round-col.current').evaluateAll((cells) => cells.filter((cell) => {
    const region = cell.closest('.table-scroll').getBoundingClientRect();
    const box = cell.getBoundingClientRect();
    return box.left < region.left - 0.5 || box.right > region.right + 0.5 || cell.scrollWidth > cell.clientWidth + 1;
  }).length);
  check(!currentRound || cut === 0, `${who}: the current round's ${cut} cells cut off`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `${who}: no sideways scrolling of the page (${overflow}px too wide)`);
}

// The series' link, opened by one of its players: the series shown on the Friends tab.
async function openSeries(page, player, locale, code) {
  await page.addInitScript((stored) => {
    if (!localStorage.getItem('shutbox.player')) localStorage.setItem('shutbox.player', stored);
  }, JSON.stringify({ id: player.id, token: player.token, name: player.name, time_zone: 'UTC' }));
  await page.goto(`/play#series=${code}`);
  await page.waitForFunction((code) => document.documentElement.lang === code, locale);
}

await run(async (browser) => {
  const anna = { ...(await call('POST', '/v1/players', { body: { name: 'Anna', time_zone: 'UTC' } })) };
  const ben = { ...(await call('POST', '/v1/players', { body: { name: 'Ben', time_zone: 'UTC' } })) };
  const made = await call('POST', '/v1/series', { token: anna.token, body: { format: { kind: 'elimination', limit: LIMIT }, computers: ['easy', 'hard'] } });
  const { code } = made;
  await call('POST', `/v1/series/${code}/players`, { token: ben.token });
  // Round by round, Ben one behind at the end: rounds 1 to 5 complete, 6 waits on Ben.
  for (let n = 1; n <= 5; n += 1) {
    await playRounds(anna, code, 1);
    await playRounds(ben, code, 1, false);
  }
  await playRounds(anna, code, 1);
  const seenByAnna = await call('GET', `/v1/series/${code}`, { token: anna.token });
  check(seenByAnna.status === 'playing' && seenByAnna.rounds_complete === 5, `five rounds complete: ${seenByAnna.status}, ${seenByAnna.rounds_complete}`);
  check(seenByAnna.players.every((p) => !p.out), `nobody out yet at ${LIMIT}: ${JSON.stringify(seenByAnna.players.map((p) => p.total))}`);

  // Anna, German, 360 px.
  const annaPage = await newPage(browser, 'anna-de-360', { ...PHONE_360, locale: 'de-DE' });
  await openSeries(annaPage, anna, 'de', code);
  const panel = view(annaPage).locator('section.series');
  await panel.locator('.series-current .standings').waitFor();
  // The game night is the Spielabend; the streak keeps the word Serie.
  check((await panel.locator('h2').first().innerText()) === 'Spielabend', `the series' heading in German: ${await panel.locator('h2').first().innerText()}`);
  check(!/\bSerie\b/.test(await panel.innerText()), 'no "Serie" (the streak) in the series panel');
  // Near the top of the Friends tab: above today's board, within the first screens.
  const [seriesTop, boardTop] = await Promise.all([panel, view(annaPage).locator('.friends-board')].map((l) => l.evaluate((el) => el.getBoundingClientRect().top + window.scrollY)));
  check(seriesTop < boardTop && seriesTop < 740, `the series near the top: at ${seriesTop}px, the board at ${boardTop}px`);
  // Under the series shown, no "make a series" form, but a button to it.
  check(await panel.locator('.series-forms').isHidden(), 'the forms hidden under an active series');
  const another = panel.getByRole('button', { name: 'Anderen Spielabend erstellen oder mitspielen' });
  check(await another.isVisible(), 'a button to make or join another');

  const series = await call('GET', `/v1/series/${code}`, { token: anna.token });
  let rows = await checkRows(annaPage, series, 'Anna (de, 360)');
  await totalsInView(annaPage, 'Anna (de, 360)');
  // Round 6: Anna and the computers have played it, Ben not yet.
  const benRow = rows.find((r) => r.seat === 3);
  check(benRow.marks['6'] === 'waiting' && benRow.current === 'noch nicht', `Ben has not played round 6 yet: ${JSON.stringify(benRow)}`);
  check(rows.filter((r) => r.seat !== 3).every((r) => r.marks['6'] === 'score'), `the others' round 6 scores shown to Anna: ${JSON.stringify(rows)}`);
  // A phone shows round 6 alone; the earlier rounds on demand.
  const visibleRounds = async (page) => view(page).locator('.series-current .standings thead th.round-col').evaluateAll((ths) => ths.filter((th) => th.getClientRects().length).map((th) => th.textContent));
  let rounds = await visibleRounds(annaPage);
  check(rounds.length === 1 && rounds[0].startsWith('Runde 6'), `on a phone the round being played only: ${rounds}`);
  await screenshot(annaPage, 'standings-1-de-360');
  const every = panel.getByRole('button', { name: 'Alle Runden' });
  check((await every.getAttribute('aria-expanded')) === 'false', 'the earlier rounds folded');
  await every.click();
  check((await every.getAttribute('aria-expanded')) === 'true', 'unfolded');
  rounds = await visibleRounds(annaPage);
  check(rounds.length === series.players[0].rounds.length && rounds.length >= 6, `every round on demand: ${rounds}`);
  await totalsInView(annaPage, 'Anna (de, 360), every round', { currentRound: false }); // the rounds scroll sideways
  await screenshot(annaPage, 'standings-2-de-360-every-round');
  await axe(annaPage, 'the standings (de, 360)');
  // A refresh keeps them unfolded.
  const before = await panel.locator('.standings').elementHandle();
  await panel.getByRole('button', { name: 'Aktualisieren' }).click();
  await annaPage.waitForFunction((el) => !el.isConnected, before);
  await panel.locator('.standings').waitFor();
  check((await panel.getByRole('button', { name: 'Alle Runden' }).getAttribute('aria-expanded')) === 'true' && (await visibleRounds(annaPage)).length === rounds.length, 'still every round after a refresh');

  // The form to make another, its fields a finger's size and styled like the others.
  await another.click();
  check(await panel.locator('.series-forms').isVisible(), 'the forms back on demand');
  await panel.getByRole('radio', { name: 'K.-o.-Modus' }).check();
  for (const label of ['Limit', 'Leicht', 'Mittel', 'Schwer']) {
    const field = panel.getByLabel(label, { exact: true });
    const box = await field.boundingBox();
    const look = await field.evaluate((el) => ({ radius: getComputedStyle(el).borderTopLeftRadius, padding: getComputedStyle(el).paddingLeft }));
    check(box.height >= TOUCH && box.width >= TOUCH, `${label}: ${box.width}×${box.height}, at least ${TOUCH}×${TOUCH}`);
    check(look.radius === '10px' && parseFloat(look.padding) >= 8, `${label}: styled as the page's fields: ${JSON.stringify(look)}`);
  }
  const rowHeights = await panel.locator('.series-create label.radio').evaluateAll((labels) => labels.filter((l) => l.getClientRects().length).map((l) => l.getBoundingClientRect().height));
  check(rowHeights.length >= 5 && rowHeights.every((height) => height >= TOUCH), `every choice's row at least ${TOUCH}px tall: ${rowHeights}`);
  await screenshot(annaPage, 'standings-3-de-360-make-another');
  await axe(annaPage, 'the series forms (de, 360)');

  // Ben, English, 390 px: round 6 not played yet by him; Anna's and the computers' played,
  // their scores hidden until he plays it (a ✓, not a score, not a 0).
  const benPage = await newPage(browser, 'ben-en-390', { ...PHONE_390, locale: 'en-GB' });
  await openSeries(benPage, ben, 'en', code);
  await view(benPage).locator('.series-current .standings').waitFor();
  const seenByBen = await call('GET', `/v1/series/${code}`, { token: ben.token });
  rows = await checkRows(benPage, seenByBen, 'Ben (en, 390)');
  await totalsInView(benPage, 'Ben (en, 390)');
  check(rows.filter((r) => r.seat !== 3).every((r) => r.marks['6'] === 'played' && r.current === '✓'), `the others have played round 6, shown as played: ${JSON.stringify(rows)}`);
  check(rows.find((r) => r.seat === 3).current === 'not yet', 'Ben has not');
  const legend = await view(benPage).locator('.standings-legend').innerText();
  check(legend.includes('✓') && legend.includes('not yet'), `the marks explained: ${legend}`);
  await screenshot(benPage, 'standings-4-en-390');
  await axe(benPage, 'the standings (en, 390)');

  // Anna on a laptop, by keyboard: every round shown at once, no button needed.
  const laptop = await newPage(browser, 'anna-en-1280', { ...LAPTOP, locale: 'en-GB' });
  await openSeries(laptop, anna, 'en', code);
  await view(laptop).locator('.series-current .standings').waitFor();
  rounds = await visibleRounds(laptop);
  check(rounds.length === series.players[0].rounds.length, `a laptop shows every round: ${rounds}`);
  check(await view(laptop).locator('.every-round').isHidden(), 'no "Every round" button on a laptop');
  await totalsInView(laptop, 'Anna (en, 1280)');
  // The standings' region is reached by Tab (it may scroll sideways).
  let reached = false;
  for (let i = 0; i < 40 && !reached; i += 1) {
    await laptop.keyboard.press('Tab');
    reached = await laptop.evaluate(() => document.activeElement?.classList.contains('table-scroll'));
  }
  check(reached, 'the standings reached by keyboard');
  await screenshot(laptop, 'standings-5-en-1280');
  await axe(laptop, 'the standings (en, 1280)');
});
