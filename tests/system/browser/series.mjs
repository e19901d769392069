// A series between two players (two browser contexts) and a computer (Easy), three
// rounds: A makes it in the Friends tab with one Easy seat and shares its link; B, on a
// phone, opens the link and says yes with the keyboard, and gives his name when asked
// for it (once: not again for the box below); A's seat is marked as the maker's. Each round A plays first (by
// clicks), then B (by keyboard): each one's standings are the API's after every step, a
// round's scores "—" to a player who has not played it yet and shown once they have.
// At the end both are told who won, and the places and winners are the API's. The form's
// bounds (each format's number, the computer seats) are the API's (GET /v1/rules). Then A
// plays a Solo round and makes a Friend Box of it: its code shown, focused (the heading
// the code describes), in view, shared through the share sheet (a stub that records what
// it is given), its code and link to copy; B opens its link, plays it, and is shown A's
// result as the owner's.
import { check, newPage, PHONE, playRound, run, screenshot, setName, text, view } from './lib.mjs';

const ROUNDS = 3;

async function stored(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
}

// The series as the API shows it to this page's player.
async function apiSeries(page, code) {
  const { token } = await stored(page);
  const answer = await page.request.get(`/v1/series/${code}`, { headers: { Authorization: `Bearer ${token}` } });
  check(answer.ok(), `the series (${answer.status()})`);
  return answer.json();
}

// The standings as the page shows them, by seat: [{seat, name, rounds (null: no score
// shown), total (null: none shown), place, you, owner}], and the seats in the page's order.
async function shownStandings(page) {
  const rows = view(page).locator('.series-current .standings tbody tr');
  await rows.first().waitFor();
  const shown = await rows.evaluateAll((items) => items.map((tr) => ({
    seat: Number(tr.dataset.seat),
    name: tr.querySelector('.standings-player').textContent,
    rounds: [...tr.querySelectorAll('.round-score')].map((td) => (td.dataset.mark === 'score' ? Number(td.textContent) : null)),
    total: tr.querySelector('.standings-total').dataset.total === undefined ? null : Number(tr.querySelector('.standings-total').textContent),
    place: tr.dataset.place ? Number(tr.dataset.place) : null,
    you: tr.classList.contains('is-you') && tr.querySelector('.chip-you')?.textContent === 'you',
    owner: tr.querySelector('.chip-owner')?.textContent === 'owner',
  })));
  return { bySeat: [...shown].sort((a, b) => a.seat - b.seat), order: shown.map((r) => r.seat) };
}

// The page's standings are the API's (a total only where a score is shown), in order of
// place; returned by seat.
async function checkStandings(page, code, label) {
  const series = await apiSeries(page, code);
  const { id } = await stored(page);
  const expected = series.players.map((p) => ({
    seat: p.seat, name: p.name, rounds: p.rounds, total: p.rounds.some((s) => s !== null) ? p.total : null, place: p.place ?? null, you: p.id === id,
    owner: p.seat === 0 && !p.computer, // the series' maker, its first seat
  }));
  const { bySeat: shown, order } = await shownStandings(page);
  check(JSON.stringify(shown) === JSON.stringify(expected), `${label}: the standings shown ${JSON.stringify(shown)} are the API's ${JSON.stringify(expected)}`);
  const counted = (p) => [p.out ? 1 : 0, series.status === 'finished' ? p.place : p.rounds.slice(0, series.rounds_complete).reduce((a, s) => a + (s ?? 0), 0)];
  const wanted = [...series.players].sort((a, b) => counted(a)[0] - counted(b)[0] || counted(a)[1] - counted(b)[1] || a.seat - b.seat).map((p) => p.seat);
  check(JSON.stringify(order) === JSON.stringify(wanted), `${label}: rows in order of place: ${order}, not ${wanted}`);
  return { shown, series };
}

async function refresh(page) {
  const before = await view(page).locator('.series-current .standings').elementHandle();
  await view(page).locator('.series-current').getByRole('button', { name: 'Refresh' }).click();
  await page.waitForFunction((el) => !el.isConnected, before);
  await view(page).locator('.series-current .standings').waitFor();
}

// Plays the player's round n of the series from its button: by clicks or the keyboard.
async function playSeriesRound(page, n, { keyboard = false } = {}) {
  const start = view(page).getByRole('button', { name: `Play round ${n}` });
  await start.waitFor();
  if (keyboard) {
    await start.focus();
    await page.keyboard.press('Enter');
  } else {
    await start.click();
  }
  await playRound(page, { keyboard });
  await view(page).getByRole('heading', { name: `Your result in round ${n}` }).waitFor({ timeout: 20000 });
  return Number(await view(page).locator('.result .hero-value').getAttribute('data-score'));
}

await run(async (browser) => {
  // A makes a three-round series with one Easy seat.
  const alice = await newPage(browser, 'A');
  await alice.addInitScript(() => {
    window.sharedWith = [];
    Object.defineProperty(navigator, 'share', { configurable: true, value: async (data) => { window.sharedWith.push(data); } });
  });
  await setName(alice, 'Alice');
  await alice.getByRole('link', { name: 'Friends', exact: true }).click();
  const panel = view(alice).locator('.series');
  await panel.getByRole('heading', { name: 'Series', level: 2 }).waitFor();
  // The form folded under its name until wanted.
  check(!(await panel.getByRole('radio', { name: 'A number of rounds' }).isVisible()), 'the make form folded');
  await panel.locator('.series-make > summary').click();
  check(await panel.getByRole('radio', { name: 'A number of rounds' }).isChecked(), 'rounds by default');
  await panel.getByRole('radio', { name: 'Up to a score' }).check();
  check((await panel.getByLabel('Target', { exact: true }).inputValue()) === '100', 'the target field for "up to a score"');
  const outAbove = panel.getByRole('checkbox', { name: /Out only above the limit/ });
  check(!(await outAbove.isVisible()), 'no "out above" choice but for elimination');
  await panel.getByRole('radio', { name: 'Elimination' }).check();
  check((await panel.getByLabel('Limit', { exact: true }).inputValue()) === '45', 'the sheets\' limit for elimination');
  check((await outAbove.isVisible()) && !(await outAbove.isChecked()), 'out at the limit by default, out above it by choice');
  // Each format's bounds, in its field and its help, and the computer seats: the API's.
  const { series: bounds } = await (await alice.request.get('/v1/rules')).json();
  const number = (n) => n.toLocaleString('en-GB');
  for (const [kind, field, key] of [['Up to a score', 'Target', 'target'], ['Elimination', 'Limit', 'limit'], ['A number of rounds', 'Rounds', 'rounds']]) {
    await panel.getByRole('radio', { name: kind }).check();
    const input = panel.getByLabel(field, { exact: true });
    const { minimum, maximum } = bounds[key];
    await panel.locator('.field-help', { hasText: `From ${number(minimum)} to ${number(maximum)}.` }).waitFor();
    const range = [await input.getAttribute('min'), await input.getAttribute('max')];
    check(range[0] === String(minimum) && range[1] === String(maximum), `${field}: ${range} is the API's ${minimum}..${maximum}`);
  }
  const seatsMax = await panel.getByLabel('Easy', { exact: true }).getAttribute('max');
  check(seatsMax === String(bounds.seats - 1), `computer seats up to ${seatsMax}: the API's ${bounds.seats} seats but the creator's`);
  await panel.getByLabel('Rounds', { exact: true }).fill(String(bounds.rounds.maximum + 1));
  await panel.getByRole('button', { name: 'Make a series' }).click();
  await panel.locator('.form-error', { hasText: `Rounds: a whole number from ${number(bounds.rounds.minimum)} to ${number(bounds.rounds.maximum)}.` }).waitFor();
  check((await panel.locator('.series-current .box-code').count()) === 0, 'no series made past the bounds');
  await panel.getByLabel('Rounds', { exact: true }).fill(String(ROUNDS));
  await panel.getByLabel('Easy', { exact: true }).fill('1');
  await panel.getByRole('button', { name: 'Make a series' }).click();
  const codeShown = panel.locator('.series-current .box-code');
  await codeShown.waitFor();
  const code = await codeShown.getAttribute('data-code');
  check(/^[0-9A-Z]{4}-[0-9A-Z]{5}$/.test(code), `a series code: ${code}`);
  const link = await panel.locator('.series-link a').getAttribute('href');
  check(link.endsWith(`/play#series=${code}`), `the series link: ${link}`);
  check(await panel.locator('.series-title').evaluate((el) => el === document.activeElement), 'the new series has the focus');
  await panel.locator('.series-info').getByRole('button', { name: 'Copy code' }).click();
  await panel.locator('.series-info .copy-status').filter({ hasText: /Copied|Copy failed/ }).first().waitFor();
  let { shown } = await checkStandings(alice, code, 'A, new');
  check(shown.length === 2 && shown[0].you && shown[1].name === 'Easy', `Alice and Easy seated: ${JSON.stringify(shown)}`);
  await screenshot(alice, 'series-1-made');

  // B, on a phone, opens the link: asked, and says yes with the keyboard; asked for his
  // name (his first series), he gives it.
  const bob = await newPage(browser, 'B', PHONE);
  await bob.goto(link);
  const invite = view(bob).locator('.series-invite');
  await invite.waitFor();
  check((await invite.innerText()).includes(code), 'the code asked about');
  await bob.waitForFunction(() => document.activeElement?.textContent === 'Join this series');
  await bob.keyboard.press('Enter');
  const prompt = bob.locator('dialog.name-prompt');
  await prompt.waitFor();
  await bob.waitForFunction(() => document.activeElement?.closest('dialog.name-prompt') && document.activeElement.tagName === 'INPUT');
  await bob.keyboard.type('Bob');
  await bob.keyboard.press('Enter');
  await view(bob).locator('.series-current .series-title').waitFor();
  check((await bob.evaluate(() => location.hash)) === '#friends', 'the link no longer in the address');
  ({ shown } = await checkStandings(bob, code, 'B, joined'));
  check(shown.map((r) => r.name).join() === 'Alice,Easy,Bob' && shown[2].you, `three seats, B's his: ${JSON.stringify(shown)}`);
  check(shown.filter((r) => r.owner).map((r) => r.name).join() === 'Alice', `A's seat marked as the maker's: ${JSON.stringify(shown)}`);
  check((await prompt.count()) === 0, 'the question gone');
  await screenshot(bob, 'series-2-joined-phone');

  const scores = { Alice: [], Bob: [] };
  for (let n = 1; n <= ROUNDS; n += 1) {
    // A plays round n: her score and Easy's shown, B's "—" (not played yet).
    scores.Alice.push(await playSeriesRound(alice, n));
    ({ shown } = await checkStandings(alice, code, `A after her round ${n}`));
    check(shown[0].rounds[n - 1] === scores.Alice[n - 1], `A's round ${n} score in the standings`);
    check(typeof shown[1].rounds[n - 1] === 'number', `Easy's round ${n} shown to A`);
    check(shown[2].rounds[n - 1] === null, `B's round ${n} "—" before he plays it`);
    const waiting = view(alice).locator(`.standings tr[data-seat="2"] td[data-round="${n}"]`);
    check((await waiting.getAttribute('data-mark')) === 'waiting' && (await waiting.textContent()) === 'not yet', `B marked "not yet" in round ${n}`);

    // B, before playing round n: A's and Easy's round n hidden from him.
    await refresh(bob);
    ({ shown } = await checkStandings(bob, code, `B before his round ${n}`));
    check(shown[0].rounds[n - 1] === null && shown[1].rounds[n - 1] === null, `round ${n} hidden from B until he plays it`);
    for (const seat of [0, 1]) {
      const cell = view(bob).locator(`.standings tr[data-seat="${seat}"] td[data-round="${n}"]`);
      check((await cell.getAttribute('data-mark')) === 'played' && (await cell.locator('[aria-hidden="true"]').textContent()) === '✓', `seat ${seat} marked as having played round ${n} (✓), its score hidden from B`);
    }
    if (n === 1) check(shown[0].total === null, 'no "0" for A before B has played a round: no score of hers shown to him');
    scores.Bob.push(await playSeriesRound(bob, n, { keyboard: true }));
    ({ shown } = await checkStandings(bob, code, `B after his round ${n}`));
    check(shown[0].rounds[n - 1] === scores.Alice[n - 1] && shown[2].rounds[n - 1] === scores.Bob[n - 1], `round ${n}'s scores shown to B`);
    if (n === 1) await screenshot(bob, 'series-3-round-1-phone');

    await refresh(alice);
    ({ shown } = await checkStandings(alice, code, `A after B's round ${n}`));
    check(shown[2].rounds[n - 1] === scores.Bob[n - 1], `B's round ${n} shown to A once played`);
  }

  // Finished: places and winners, the API's, and who won in words.
  for (const page of [alice, bob]) {
    const { shown: final, series } = await checkStandings(page, code, 'finished');
    check(series.status === 'finished', `finished: ${series.status}`);
    check(final.every((r) => r.place !== null && r.rounds.every((s) => s !== null)), 'every place and score shown');
    const best = Math.min(...final.map((r) => r.total));
    check(final.every((r) => (r.place === 1) === (r.total === best)), 'the lowest total first');
    const names = series.winners.map((w) => w.name).join(', ');
    const said = await text(page, '.series-winners');
    check(said === `${series.winners.length > 1 ? 'Winners' : 'Winner'}: ${names}`, `who won: ${said} (${names})`);
    check((await view(page).getByRole('button', { name: /^Play round/ }).count()) === 0, 'no round left to play');
  }
  check(scores.Alice.length === ROUNDS && scores.Bob.length === ROUNDS, 'three rounds each');
  await screenshot(alice, 'series-4-finished');
  const overflow = await bob.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scrolling on a phone (${overflow}px too wide)`);

  // A Solo round made a Friend Box: its code focused and in view.
  await alice.getByRole('link', { name: 'Solo', exact: true }).click();
  await view(alice).getByRole('button', { name: 'Roll the dice' }).click();
  await playRound(alice);
  await view(alice).locator('.result').waitFor({ timeout: 20000 });
  const aliceScore = Number(await view(alice).locator('.result .hero-value').getAttribute('data-score'));
  await view(alice).getByRole('button', { name: 'Make a Friend Box of this round' }).click();
  const made = view(alice).locator('.made-box');
  await made.locator('.box-code').waitFor();
  const boxCode = await made.locator('.box-code').getAttribute('data-code');
  check(/^[0-9A-Z]{4}-[0-9A-Z]{5}$/.test(boxCode), `a box code: ${boxCode}`);
  check(await alice.evaluate(() => {
    const focused = document.activeElement;
    return focused?.textContent === 'Your box is ready' && focused.closest('.made-box') !== null
      && document.getElementById(focused.getAttribute('aria-describedby'))?.dataset.code === focused.parentElement.querySelector('.box-code').dataset.code;
  }), 'the new box has the focus, the heading the code describes');
  check(await made.locator('.box-code').isVisible() && await alice.evaluate(() => {
    const r = document.activeElement.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  }), 'the new box in view');
  const boxLink = await made.locator('.box-link a').getAttribute('href');
  check(boxLink.endsWith(`/play#box=${boxCode}`), `the box link: ${boxLink}`);
  await made.getByRole('button', { name: 'Share' }).click();
  const shared = await alice.evaluate(() => window.sharedWith);
  check(shared.length === 1 && shared[0].text.includes(boxLink) && shared[0].title === `Box ${boxCode}`, `shared: ${JSON.stringify(shared)}`);
  await made.getByRole('button', { name: 'Copy code' }).waitFor();
  await made.getByRole('button', { name: 'Copy link' }).waitFor();
  await screenshot(alice, 'series-5-solo-box');

  // B opens it, plays it blind and is shown A's round as the owner's.
  await bob.goto(boxLink);
  await view(bob).getByRole('button', { name: 'Play this box' }).click();
  check((await prompt.count()) === 0, 'B asked for his name once only');
  await playRound(bob, { keyboard: true });
  await view(bob).locator('.result').waitFor({ timeout: 20000 });
  const versus = await text(bob, '.stat.versus');
  check(versus.includes(String(aliceScore)), `versus the owner's ${aliceScore}: ${versus}`);
  const results = view(bob).locator('.results-panel .results li');
  await results.nth(1).waitFor();
  const rows = await results.evaluateAll((items) => items.map((li) => ({
    name: li.querySelector('.results-name').textContent,
    score: Number(li.querySelector('.results-score').firstChild.textContent),
    you: li.classList.contains('is-you') && li.querySelector('.chip-you') !== null,
    owner: li.querySelector('.chip-owner') !== null,
  })));
  check(rows.some((r) => r.name === 'Alice' && r.score === aliceScore && r.owner && !r.you), `A's run among the box's results, the owner's: ${JSON.stringify(rows)}`);
  check(rows.some((r) => r.name === 'Bob' && r.you && !r.owner), `B's too, his: ${JSON.stringify(rows)}`);
  await screenshot(bob, 'series-6-box-result-phone');
});
