// A Friend Box by code between two players (two browser contexts). A names herself,
// makes a box, plays it. B, on a phone, types the code with a typo and is told it was
// mistyped, then types it right, plays blind, and sees the result versus A and the
// box's results. C opens the box with the target and is shown A's final position.
import { check, mistyped, newPage, PHONE, playRound, run, screenshot, setName, text, view } from './lib.mjs';

await run(async (browser) => {
  // Player A makes a box and plays it (mouse clicks).
  const alice = await newPage(browser, 'A', { timezoneId: 'Europe/Oslo' });
  await setName(alice, 'Alice');
  await alice.getByRole('link', { name: 'Friend Box' }).click();
  await alice.getByRole('button', { name: 'Make a box' }).click();
  const codeShown = view(alice).locator('.created .box-code');
  await codeShown.waitFor();
  const code = await codeShown.getAttribute('data-code');
  check(/^[0-9A-Z]{4}-[0-9A-Z]{5}$/.test(code), `a box code: ${code}`);
  const link = await view(alice).locator('.box-link a').getAttribute('href');
  check(link.endsWith(`/play#box=${code}`), `the box's link: ${link}`);
  await screenshot(alice, 'box-1-created');
  await view(alice).locator('.created').getByRole('button', { name: 'Play it now' }).click();
  await playRound(alice);
  await view(alice).locator('.result').waitFor({ timeout: 20000 });
  const aliceScore = Number(await text(alice, '.hero-value'));
  check((await view(alice).locator('.stat.versus').count()) === 0, 'no versus for the owner');
  await view(alice).locator('.results li').first().waitFor();
  check((await view(alice).locator('.results li').count()) === 1, 'the owner in the results');

  // Player B, on a phone: a typo first, then the code.
  const bob = await newPage(browser, 'B', { ...PHONE, timezoneId: 'America/New_York' });
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
  await view(bob).getByRole('button', { name: 'Play this box' }).click();
  await screenshot(bob, 'box-3-playing-phone');
  await playRound(bob, { keyboard: true });
  await view(bob).locator('.result').waitFor({ timeout: 20000 });
  const bobScore = Number(await text(bob, '.hero-value'));
  const versus = await text(bob, '.stat.versus');
  const outcome = bobScore < aliceScore ? 'You win!' : bobScore === aliceScore ? 'A tie' : 'The owner wins';
  check(versus.includes(outcome) && versus.includes(String(aliceScore)), `versus: ${versus} (${bobScore} v ${aliceScore})`);
  await view(bob).locator('.results li').nth(1).waitFor();
  const results = await view(bob).locator('.results li').allInnerTexts();
  check(results.length === 2, `two results: ${results}`);
  check(results.some((r) => r.includes('Alice')) && results.some((r) => r.includes('Bob')), `names in the results: ${results}`);
  check(results.every((r) => /blind/i.test(r)), 'both blind');
  await screenshot(bob, 'box-4-result-phone');

  // The phone layout does not scroll sideways.
  const overflow = await bob.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scrolling on a phone (${overflow}px too wide)`);

  // C asks for the target: A's final position, before playing.
  const carol = await newPage(browser, 'C');
  await carol.goto('/play#box');
  await carol.getByLabel('Box code').fill(code);
  await carol.getByRole('radio', { name: /With target/ }).check();
  await carol.getByRole('button', { name: 'Open box' }).click();
  const target = view(carol).locator('.box-info .target');
  await target.waitFor();
  const targetText = await target.innerText();
  check(aliceScore === 0 ? /shut the box/.test(targetText) : targetText.includes(`score ${aliceScore}`), `the target: ${targetText}`);
  check((await text(carol, '.box-meta')).includes('2 players so far'), 'two players so far');
  await screenshot(carol, 'box-5-target');

  // A link to the box opens it directly; A has played it already.
  await alice.goto(`/play#box=${code}`);
  await alice.reload();
  await view(alice).locator('.box-info').waitFor();
  await view(alice).locator('.results li').nth(1).waitFor();
  check((await view(alice).locator('.active-box .note').innerText()).includes('played this box'), 'A is told she played it');
});
