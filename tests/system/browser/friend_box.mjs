// A Friend Box by code between three players (three browser contexts). A, on a phone
// (390×844), makes a box: asked for her name first (the first box), she gives it; the
// new code is in view and has the focus; she shares it through the share sheet (a stub
// of navigator.share that records what it is given: the text has the link). She plays it
// with the box in the address: a reload after her first move resumes the round at the
// same roll on the same dice; Back leaves the box, Forward comes back to it, her own
// score and analysis shown again. B, on a phone, types the code with a typo and is told
// it was mistyped, then types it right, plays blind the same moves as A, and sees the
// tie versus A and the box's results: both in first place, "you" on his row, "owner" on
// A's; he copies the link (no share sheet there); a reload shows his own result again.
// C opens the box with the target: asked for a name, skips it, is shown A's final
// position, is not asked again on a reload, plays, and is "Anonymous" and "you" in the
// results, every place the number of better runs plus one. A box of 130 players (its
// results answered by a stub of the API's pages) shows 100, then the rest on "More results".
import { baseUrl, check, mistyped, newPage, PHONE, PHONE_TALL, playRound, run, screenshot, setName, text, view } from './lib.mjs';

// A box's dice, as anyone with its code gets them.
async function boxDice(page, code) {
  const answer = await page.request.get(`/v1/boxes/${code}`);
  check(answer.ok(), `the box (${answer.status()})`);
  return (await answer.json()).dice;
}

// The sets of tiles (bit masks over 1..9) of `open` that add up to `total`.
function sets(open, total) {
  const found = [];
  for (let mask = 1; mask <= open; mask += 1) {
    if ((mask & open) !== mask) continue;
    let sum = 0;
    for (let tile = 1; tile <= 9; tile += 1) if (mask & (1 << (tile - 1))) sum += tile;
    if (sum === total) found.push(mask);
  }
  return found;
}

// A first move (its tiles) after which the second roll can be played too, so that the
// round is still on after it; null when there is none (1 + 1 twice).
function firstMove(dice) {
  const all = (1 << 9) - 1;
  const [first, second] = dice.map(([d1, d2]) => d1 + d2);
  const mask = sets(all, first).find((m) => sets(all ^ m, second).length > 0);
  if (mask === undefined) return null;
  return [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((tile) => mask & (1 << (tile - 1)));
}

// Plays these tiles on the round's current roll: clicked, or typed with Enter.
async function playMove(page, tiles, { keyboard = false } = {}) {
  const round = view(page).locator('.round[data-phase="move"]');
  await round.waitFor();
  for (const tile of tiles) {
    if (keyboard) await page.keyboard.press(String(tile));
    else await round.locator(`.tile[data-tile="${tile}"]`).click();
  }
  if (keyboard) await page.keyboard.press('Enter');
  else await round.locator('.actions button.primary').click();
}

// The round as shown: its roll, the dice, the rolls so far.
async function roundShown(page) {
  const round = view(page).locator('.round');
  return {
    phase: await round.getAttribute('data-phase'),
    roll: (await round.locator('.roll-number').textContent()).trim(),
    dice: (await round.locator('.roll-text').textContent()).trim(),
    history: await round.locator('.history li').allTextContents(),
  };
}

// The box's results as shown: [{rank, place, name, score, mode, you, owner}].
async function resultRows(page, count) {
  const rows = view(page).locator('.results-panel .results li');
  await rows.nth(count - 1).waitFor();
  const shown = await rows.evaluateAll((items) => items.map((li) => ({
    rank: Number(li.querySelector('.results-rank').textContent),
    place: Number(li.dataset.rank),
    name: li.querySelector('.results-name').textContent,
    score: Number(li.querySelector('.results-score').firstChild.textContent),
    mode: li.querySelector(':scope > .chip').textContent,
    you: li.classList.contains('is-you') && li.querySelector('.chip-you')?.textContent === 'you',
    owner: li.querySelector('.chip-owner')?.textContent === 'owner',
  })));
  check(shown.length === count, `${count} results: ${JSON.stringify(shown)}`);
  for (const row of shown) {
    // Ties share a place: one more than the runs with a better score, never the row's number.
    const place = 1 + shown.filter((other) => other.score < row.score).length;
    check(row.rank === place && row.place === place, `the place of ${JSON.stringify(row)} is ${place}`);
  }
  for (let i = 1; i < shown.length; i += 1) check(shown[i - 1].score <= shown[i].score, 'best first');
  return shown;
}

const namePrompt = (page) => page.locator('dialog.name-prompt');

await run(async (browser) => {
  // Player A, on a phone, makes a box: asked for her name first (optional), she gives it.
  const alice = await newPage(browser, 'A', { ...PHONE_TALL, timezoneId: 'Europe/Oslo' });
  await alice.addInitScript(() => {
    window.sharedWith = [];
    Object.defineProperty(navigator, 'share', { configurable: true, value: async (data) => { window.sharedWith.push(data); } });
  });
  await alice.goto('/play#box');
  await view(alice).getByRole('button', { name: 'Make a box' }).click();
  const prompt = namePrompt(alice);
  await prompt.waitFor();
  check(await prompt.evaluate((dialog) => dialog.open && dialog.contains(document.activeElement) && document.activeElement.tagName === 'INPUT'), 'the name asked for, its field focused');
  await screenshot(alice, 'box-0-name-prompt-phone');
  await prompt.getByLabel('Name', { exact: true }).fill('Alice');
  await prompt.getByRole('button', { name: 'Save name' }).click();
  const codeShown = view(alice).locator('.created .box-code');
  await codeShown.waitFor();
  check((await prompt.count()) === 0, 'the question gone');
  const code = await codeShown.getAttribute('data-code');
  check(/^[0-9A-Z]{4}-[0-9A-Z]{5}$/.test(code), `a box code: ${code}`);
  // The new code in view and focused (its heading, which the code describes).
  const where = await codeShown.boundingBox();
  check(where && where.y >= 0 && where.y + where.height <= 844 && where.x >= 0 && where.x + where.width <= 390, `the code in view: ${JSON.stringify(where)}`);
  check(await alice.evaluate(() => {
    const focused = document.activeElement;
    return focused.closest('.created') !== null && document.getElementById(focused.getAttribute('aria-describedby'))?.classList.contains('box-code');
  }), 'the new box has the focus');
  const link = await view(alice).locator('.created .box-link a').getAttribute('href');
  check(link.endsWith(`/play#box=${code}`), `the box's link: ${link}`);
  await view(alice).locator('.created').getByRole('button', { name: 'Copy code' }).waitFor();
  await view(alice).locator('.created').getByRole('button', { name: 'Copy link' }).waitFor();
  await screenshot(alice, 'box-1-created-phone');

  // Shared through the share sheet: a line with the link in it.
  await view(alice).locator('.created').getByRole('button', { name: 'Share' }).click();
  const shared = await alice.evaluate(() => window.sharedWith);
  check(shared.length === 1 && shared[0].text.includes(link) && shared[0].title === `Box ${code}`, `shared: ${JSON.stringify(shared)}`);

  // A plays it: the box in the address. A reload after her first move resumes the round
  // at the same roll on the same dice (or, without a first move that keeps the round on,
  // starts the round again on the same box).
  const dice = await boxDice(alice, code);
  const plan = firstMove(dice);
  await view(alice).locator('.created').getByRole('button', { name: 'Play it now' }).click();
  check((await alice.evaluate(() => location.hash)) === `#box=${code}`, 'the box in the address');
  const [d1, d2] = plan ? dice[1] : dice[0];
  if (plan) {
    await playMove(alice, plan);
    await view(alice).locator('.round .history li').first().waitFor();
    const before = await roundShown(alice);
    check(before.phase === 'move' && before.roll === 'Roll 2' && before.history.length === 1, `the second roll: ${JSON.stringify(before)}`);
    await alice.reload();
    await view(alice).locator('.round[data-phase="move"]').waitFor();
    const after = await roundShown(alice);
    check(JSON.stringify(after) === JSON.stringify(before), `resumed as it was: ${JSON.stringify(after)} (${JSON.stringify(before)})`);
  } else {
    await view(alice).locator('.round[data-phase="move"]').waitFor();
    await alice.reload();
    await view(alice).getByRole('button', { name: 'Play this box' }).click();
    await view(alice).locator('.round[data-phase="move"]').waitFor();
  }
  check((await roundShown(alice)).dice === `${d1} + ${d2} = ${d1 + d2}`, 'the box\'s dice');
  check((await namePrompt(alice).count()) === 0, 'not asked again');
  await screenshot(alice, 'box-3-resumed-phone');
  await playRound(alice);
  await view(alice).locator('.result').waitFor({ timeout: 20000 });
  const aliceScore = Number(await text(alice, '.hero-value'));
  check((await view(alice).locator('.stat.versus').count()) === 0, 'no versus for the owner');
  let rows = await resultRows(alice, 1);
  check(rows[0].name === 'Alice' && rows[0].you && rows[0].owner, `the owner in the results, hers: ${JSON.stringify(rows)}`);

  // Another tab, then back to the box, Back again to the forms, Forward to the box: her
  // own score and analysis shown again.
  await alice.getByRole('link', { name: 'Daily Dice' }).click();
  await view(alice).getByRole('heading', { name: 'Daily Dice', level: 1 }).waitFor();
  const boxTab = await alice.getByRole('link', { name: 'Friend Box' }).getAttribute('href');
  check(boxTab === `#box=${code}`, `the tab leads back to the box: ${boxTab}`);
  await alice.goBack();
  await view(alice).locator('.active-box .result').waitFor();
  await alice.goBack();
  await view(alice).locator('.box-forms').waitFor();
  check((await alice.evaluate(() => location.hash)) === '#box' && (await view(alice).locator('.active-box').innerText()).trim() === '', 'Back left the box');
  await alice.goForward();
  await view(alice).locator('.active-box .result .analysis').waitFor();
  check(Number(await text(alice, '.active-box .hero-value')) === aliceScore, 'her own score again');
  check((await view(alice).locator('.active-box .analysis .moves li').count()) > 0, 'her analysis again');

  // Player B, on a phone without a share sheet: a typo first, then the code.
  const bob = await newPage(browser, 'B', { ...PHONE, timezoneId: 'America/New_York' });
  await bob.addInitScript(() => { delete Navigator.prototype.share; });
  await bob.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  await setName(bob, 'Bob');
  await bob.getByRole('link', { name: 'Friend Box' }).click();
  const input = bob.getByLabel('Box code');
  const typo = mistyped(code, 7);
  await input.fill(typo.toLowerCase());
  await input.press('Enter');
  const error = view(bob).locator('.form-error .error');
  await error.waitFor();
  check(/mistyped/i.test(await error.innerText()), `the mistyped message: ${await error.innerText()}`);
  check((await input.getAttribute('aria-invalid')) === 'true', 'the field marked invalid');
  await screenshot(bob, 'box-2-mistyped');

  // An unknown code with a valid check symbol: 404, said so.
  await input.fill('0000-00000');
  await bob.getByRole('button', { name: 'Open box' }).click();
  await error.filter({ hasText: /no box/i }).waitFor();

  await input.fill(code.replace('-', ' ').toLowerCase());
  await bob.getByRole('radio', { name: /Blind/ }).check();
  await bob.getByRole('button', { name: 'Open box' }).click();
  const info = view(bob).locator('.box-info');
  await info.waitFor();
  check((await info.innerText()).includes(`Box ${code}`), 'the box opened');
  check((await info.innerText()).includes('Made by Alice'), 'its owner');
  check((await info.locator('.target').count()) === 0, 'blind: no target shown');
  check((await bob.evaluate(() => location.hash)) === `#box=${code}`, 'the box in B\'s address');
  await view(bob).getByRole('button', { name: 'Play this box' }).click();
  await screenshot(bob, 'box-3-playing-phone');
  // A's moves: her first move, then the same choices as hers (the first tile that fits).
  await playRound(bob, { keyboard: true, onMove: async (page, _round, index) => (index === 0 && plan ? (await playMove(page, plan, { keyboard: true }), true) : false) });
  await view(bob).locator('.result').waitFor({ timeout: 20000 });
  const bobScore = Number(await text(bob, '.hero-value'));
  check(bobScore === aliceScore, `the same moves, the same score: ${bobScore} v ${aliceScore}`);
  const versus = await text(bob, '.stat.versus');
  check(versus.includes('A tie') && versus.includes(String(aliceScore)), `versus: ${versus} (${bobScore} v ${aliceScore})`);
  rows = await resultRows(bob, 2);
  check(rows.every((r) => r.rank === 1), `a tie shares the first place: ${JSON.stringify(rows)}`);
  check(rows.filter((r) => r.you).map((r) => r.name).join() === 'Bob' && rows.filter((r) => r.owner).map((r) => r.name).join() === 'Alice', `"you" on B's row, "owner" on A's: ${JSON.stringify(rows)}`);
  check(rows.every((r) => r.mode === 'blind'), 'both blind');

  // No share sheet here: no Share button, and the link is copied.
  const share = view(bob).locator('.results-panel .box-share');
  check((await share.getByRole('button', { name: 'Share' }).count()) === 0, 'no Share button without a share sheet');
  await share.getByRole('button', { name: 'Copy link' }).click();
  await share.locator('.copy-status').filter({ hasText: 'Copied!' }).waitFor();
  check((await bob.evaluate(() => navigator.clipboard.readText())) === link, 'the link copied');
  await screenshot(bob, 'box-4-result-phone');

  // The phone layout does not scroll sideways.
  const overflow = await bob.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scrolling on a phone (${overflow}px too wide)`);

  // B comes back to the box (a reload): his own score and analysis.
  await bob.reload();
  await view(bob).locator('.active-box .result .analysis').waitFor();
  check(Number(await text(bob, '.active-box .hero-value')) === bobScore, 'his own score again');
  check((await view(bob).locator('.active-box .stat.versus').innerText()).includes('A tie'), 'his versus again');
  await resultRows(bob, 2);
  await screenshot(bob, 'box-6-revisit-phone');

  // C asks for the target: asked for a name first, skips it; shown A's final position.
  const carol = await newPage(browser, 'C');
  await carol.goto('/play#box');
  await carol.getByLabel('Box code').fill(code);
  await carol.getByRole('radio', { name: /With target/ }).check();
  await carol.getByRole('button', { name: 'Open box' }).click();
  await namePrompt(carol).waitFor();
  await namePrompt(carol).getByRole('button', { name: 'Not now' }).click();
  const target = view(carol).locator('.box-info .target');
  await target.waitFor();
  const targetText = await target.innerText();
  check(aliceScore === 0 ? /shut the box/.test(targetText) : targetText.includes(`score ${aliceScore}`), `the target: ${targetText}`);
  check((await text(carol, '.box-meta')).includes('2 players so far'), 'two players so far');
  await screenshot(carol, 'box-5-target');
  // A reload: the same box, with its target, and no question again.
  await carol.reload();
  await target.waitFor();
  check((await namePrompt(carol).count()) === 0, 'asked once');
  await view(carol).getByRole('button', { name: 'Play this box' }).click();
  await playRound(carol);
  await view(carol).locator('.result').waitFor({ timeout: 20000 });
  const carolScore = Number(await text(carol, '.hero-value'));
  rows = await resultRows(carol, 3);
  const carols = rows.filter((r) => r.you);
  check(carols.length === 1 && carols[0].name === 'You' && carols[0].score === carolScore && carols[0].mode === 'target', `C's row: ${JSON.stringify(rows)}`);
  check(rows.filter((r) => r.owner).map((r) => r.name).join() === 'Alice', `the owner's row: ${JSON.stringify(rows)}`);

  // A link to the box opens it directly; A has played it already: told so, her result shown.
  await alice.goto(`/play#box=${code}`);
  await alice.reload();
  await view(alice).locator('.box-info').waitFor();
  await resultRows(alice, 3);
  check((await view(alice).locator('.active-box .note').innerText()).includes('played this box'), 'A is told she played it');
  check(Number(await text(alice, '.active-box .hero-value')) === aliceScore, 'her own score on a new visit');

  // A box of many players (its results answered here, as the API pages them: 100 at a time
  // after `offset`, with the box's count of players): the first page, then "More results".
  const many = 130;
  const manyRows = Array.from({ length: many }, (_, i) => ({
    name: `Player ${i}`, score: Math.floor(i / 3), shut: i < 3, mode: 'blind',
    submitted_at: '2026-12-01T12:00:00Z', place: 3 * Math.floor(i / 3) + 1, me: false, owner: false,
  }));
  await alice.route('**/v1/boxes/*/results?*', (route) => {
    const query = new URL(route.request().url()).searchParams;
    const offset = Number(query.get('offset'));
    route.fulfill({ json: manyRows.slice(offset, offset + Number(query.get('limit'))) });
  });
  await alice.route(`**/v1/boxes/${code.replace('-', '')}`, async (route) => {
    const box = await (await route.fetch()).json();
    route.fulfill({ json: { ...box, players: many } });
  });
  await alice.reload();
  await view(alice).locator('.results-panel .results li').nth(99).waitFor();
  check((await view(alice).locator('.results-panel .results li').count()) === 100, 'a page of 100 results');
  await view(alice).locator('.box-players').filter({ hasText: `${many} players so far` }).waitFor();
  const more = view(alice).getByRole('button', { name: 'More results' });
  await more.click();
  await view(alice).locator('.results-panel .results li').nth(many - 1).waitFor();
  const places = await view(alice).locator('.results-panel .results li').evaluateAll((items) => items.map((li) => Number(li.dataset.rank)));
  check(JSON.stringify(places) === JSON.stringify(manyRows.map((r) => r.place)), `every place as the API gave it: ${places}`);
  check(await more.isHidden(), 'no more after the last page');
  check(await alice.evaluate(() => document.activeElement?.textContent?.includes('Player 100')), 'the first new result has the focus');
});
