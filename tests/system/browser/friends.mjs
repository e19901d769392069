// Friends between two players (two browser contexts). A names herself and makes a friend
// code; her own link says it is hers. B, on a phone, types the code with a typo
// and is told it was mistyped, then opens A's link and says yes. Both see the other in
// their friends with a streak; today's friends' board asks each to play the Daily Dice
// first (its button leads there); both play it, and each sees both on the board, best
// first, with places as the API gives them and "you" on their own row. B removes A, with
// the keyboard and a confirmation: gone on both sides. A's new code replaces the old one,
// which is then unknown.
import { check, mistyped, newPage, PHONE, playRound, run, screenshot, setName, view } from './lib.mjs';

async function token(page) {
  return (await page.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')))).token;
}

// Today's Daily Dice from the friends' board's button: played to the end.
async function playTodayFromBoard(page) {
  const board = view(page).locator('.friends-board');
  await board.getByText('Play today’s Daily Dice first').waitFor();
  await board.getByRole('button', { name: 'Play today’s Daily Dice' }).click();
  await view(page).getByRole('button', { name: 'Start today’s round' }).click();
  await playRound(page);
  await view(page).locator('.result').waitFor({ timeout: 20000 });
}

// The board as the page shows it: [{rank, name, score, you}], checked against the API's.
async function boardRows(page, day) {
  await page.getByRole('link', { name: 'Friends', exact: true }).click();
  const rows = view(page).locator('.friends-board .board li');
  await rows.nth(1).waitFor();
  const shown = await rows.evaluateAll((items) => items.map((li) => ({
    rank: Number(li.querySelector('.results-rank').textContent),
    name: li.querySelector('.results-name').textContent,
    score: Number(li.querySelector('.results-score').firstChild.textContent),
    you: li.classList.contains('is-you') && li.querySelector('.chip-you')?.textContent === 'you',
  })));
  const answer = await page.request.get(`/v1/daily/${day}/friends`, { headers: { Authorization: `Bearer ${await token(page)}` } });
  check(answer.ok(), `the friends' board (${answer.status()})`);
  const expected = (await answer.json()).players.map((p) => ({ rank: p.rank, name: p.name, score: p.score, you: p.me }));
  check(JSON.stringify(shown) === JSON.stringify(expected), `the board shown ${JSON.stringify(shown)} is the API's ${JSON.stringify(expected)}`);
  for (let i = 1; i < shown.length; i += 1) check(shown[i - 1].score <= shown[i].score, 'best first');
  if (shown.length === 2 && shown[0].score === shown[1].score) check(shown[1].rank === 1, 'a tie shares the place');
  return shown;
}

await run(async (browser) => {
  // A makes her friend code.
  const alice = await newPage(browser, 'A');
  await setName(alice, 'Alice');
  await alice.getByRole('link', { name: 'Friends', exact: true }).click();
  await view(alice).getByRole('heading', { name: 'Friends', level: 1 }).waitFor();
  await view(alice).locator('.friends-body').getByText('No friends yet').waitFor();
  await view(alice).getByRole('button', { name: 'Make a friend code' }).click();
  const codeShown = view(alice).locator('.friend-code .box-code');
  await codeShown.waitFor();
  const code = await codeShown.getAttribute('data-code');
  check(/^[0-9A-Z]{4}-[0-9A-Z]{5}$/.test(code), `a friend code: ${code}`);
  const link = await view(alice).locator('.friend-link a').getAttribute('href');
  check(link.endsWith(`/play#friend=${code}`), `the friend link: ${link}`);
  // A new code would end the link just shared: asked first, and "keep" is where the focus
  // lands (a second tap or Enter keeps the code); Escape puts the question away.
  const newCode = view(alice).getByRole('button', { name: 'Make a new code' });
  await newCode.click();
  const question = view(alice).getByRole('group', { name: /Make a new code\? The code and link above stop working/ });
  await question.waitFor();
  const focused = () => alice.evaluate(() => document.activeElement?.textContent);
  check((await focused()) === 'Keep this code', `the focus on keeping the code: ${await focused()}`);
  await screenshot(alice, 'friends-1-new-code-asked');
  await alice.keyboard.press('Enter');
  await question.waitFor({ state: 'hidden' });
  check((await codeShown.getAttribute('data-code')) === code, 'the code kept');
  check((await focused()) === 'Make a new code', 'the focus back on the button');
  await alice.keyboard.press('Enter');
  await question.waitFor();
  await alice.keyboard.press('Escape');
  await question.waitFor({ state: 'hidden' });
  check((await codeShown.getAttribute('data-code')) === code, 'the code kept after Escape');
  await view(alice).locator('.own-code').getByRole('button', { name: 'Copy code' }).click();
  await view(alice).locator('.own-code .copy-status').filter({ hasText: /Copied|Copy failed/ }).first().waitFor();
  await screenshot(alice, 'friends-1-code');

  // Her own link: said to be her own at once (the invitation knows whose a code is).
  // A link opened afresh, as from a message (a page of its own: a reload could come after
  // the answer had taken the link out of the address).
  await alice.goto('about:blank');
  await alice.goto(link);
  const aliceInvite = view(alice).locator('.invite-panel');
  await aliceInvite.getByText('This is your own friend code').waitFor();
  check((await aliceInvite.getByRole('button', { name: 'Become friends' }).count()) === 0, 'nothing to say yes to');
  await aliceInvite.getByRole('button', { name: 'Close' }).click();
  check((await view(alice).locator('.invite-panel').count()) === 0, 'the question closed');
  check((await alice.evaluate(() => location.hash)) === '#friends', 'the link no longer in the address');

  // B, on a phone: a typo first, then A's link.
  const bob = await newPage(browser, 'B', PHONE);
  await setName(bob, 'Bob');
  await bob.getByRole('link', { name: 'Friends', exact: true }).click();
  const input = bob.getByLabel('Friend’s code');
  const typo = mistyped(code, 5);
  await input.fill(typo.toLowerCase());
  await input.press('Enter');
  const error = view(bob).locator('.redeem .form-error .error');
  await error.filter({ hasText: /mistyped/i }).waitFor();
  check((await input.getAttribute('aria-invalid')) === 'true', 'the field marked invalid');
  await screenshot(bob, 'friends-2-mistyped-phone');

  await bob.goto(link);
  const invite = view(bob).locator('.invite-panel');
  await invite.getByText(`Alice invites you to be friends (code ${code})`).waitFor();
  const yes = invite.getByRole('button', { name: 'Become friends' });
  await bob.waitForFunction(() => document.activeElement?.textContent === 'Become friends');
  await bob.keyboard.press('Enter');
  await view(bob).locator('.invite-done').getByText('You and Alice are friends now.').waitFor();
  check((await yes.count()) === 0, 'the question answered');
  const bobFriends = view(bob).locator('.friend-list .friend');
  await bobFriends.filter({ hasText: 'Alice' }).waitFor();
  check((await bobFriends.count()) === 1, 'one friend');
  check((await bobFriends.first().innerText()).includes('Streak: 0 (best 0)'), `Alice's streak: ${await bobFriends.first().innerText()}`);
  // A second time: friends already.
  await input.fill(code);
  await bob.getByRole('button', { name: 'Add friend' }).click();
  await view(bob).locator('.redeem').getByText('You and Alice are friends already.').waitFor();

  // Nobody has played today: the board asks B to play first; its button leads there.
  const day = await bob.evaluate(() => new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC' }).format(new Date()));
  await screenshot(bob, 'friends-3-befriended-phone');
  await playTodayFromBoard(bob);

  // A (still on the tab, shown again) sees B among her friends, with his streak of 1,
  // and plays today too.
  await alice.reload();
  const aliceFriends = view(alice).locator('.friend-list .friend');
  await aliceFriends.filter({ hasText: 'Bob' }).filter({ hasText: 'Streak: 1 (best 1)' }).waitFor();
  await playTodayFromBoard(alice);

  // Each sees both on today's board, "you" on their own row.
  const aliceBoard = await boardRows(alice, day);
  check(aliceBoard.length === 2 && aliceBoard.filter((r) => r.you).map((r) => r.name).join() === 'Alice', `A's board: ${JSON.stringify(aliceBoard)}`);
  await screenshot(alice, 'friends-4-board');
  const bobBoard = await boardRows(bob, day);
  check(bobBoard.filter((r) => r.you).map((r) => r.name).join() === 'Bob', `B's board: ${JSON.stringify(bobBoard)}`);
  check(JSON.stringify(bobBoard.map((r) => [r.rank, r.name, r.score])) === JSON.stringify(aliceBoard.map((r) => [r.rank, r.name, r.score])), 'the same board for both');
  await screenshot(bob, 'friends-5-board-phone');
  const overflow = await bob.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scrolling on a phone (${overflow}px too wide)`);

  // B removes A with the keyboard: asked first (Escape keeps her), then yes.
  const remove = view(bob).getByRole('button', { name: 'Remove Alice' });
  await remove.focus();
  await bob.keyboard.press('Enter');
  const confirm = view(bob).getByRole('button', { name: 'Yes, remove' });
  await confirm.waitFor();
  check(await confirm.evaluate((el) => el === document.activeElement), 'the confirmation has the focus');
  check((await view(bob).locator('.friend .confirm-text').innerText()).includes('Remove Alice from your friends?'), 'the question');
  await bob.keyboard.press('Escape');
  await remove.waitFor();
  check(await remove.evaluate((el) => el === document.activeElement), 'kept: the focus back on Remove');
  await bob.keyboard.press('Enter');
  await confirm.waitFor();
  await bob.keyboard.press('Enter');
  await view(bob).getByText('Alice is no longer your friend.').waitFor();
  await view(bob).locator('.friends-body').getByText('No friends yet').waitFor();
  await view(bob).locator('.friends-board').getByText('None of your friends has played today’s Daily Dice yet.').waitFor();
  check((await view(bob).locator('.friends-board .board li').count()) === 1, 'only B on his board');
  await screenshot(bob, 'friends-6-removed-phone');

  // Both ways: A's list is empty too.
  await alice.reload();
  await view(alice).locator('.friends-body').getByText('No friends yet').waitFor();

  // A's new code replaces the old one, once she says yes: the old one is unknown now.
  await view(alice).getByRole('button', { name: 'Make a new code' }).click();
  await view(alice).getByRole('button', { name: 'Yes, make a new code' }).click();
  await codeShown.filter({ hasNotText: code }).waitFor();
  await input.fill(code);
  await bob.getByRole('button', { name: 'Add friend' }).click();
  await error.filter({ hasText: /No friend code is/ }).waitFor();
  await screenshot(bob, 'friends-7-old-code-phone');
});
