// Names on phones (360×740 and 390×844): friends are never "Anonymous". Anna, new and
// nameless on a 390 px phone, makes a friend code: asked for her name first (she can't
// share a code without one). Ben, new and nameless on a 360 px phone, opens her link: the
// invitation names Anna and asks his name as part of saying yes (once: an empty name is
// refused, and no other question follows). Each then sees the other by name in their
// friends, on today's board once both have played (two rows, two names), and nowhere
// "Anonymous". Before either has played, the board is not asked for (no 403 at all).
// Anna makes a series (elimination at 45, a Medium seat): Ben's link shows it before he
// joins (whose it is, its format, who sits at it); then both find it in "Your series".
// Anna plays a Solo round with a hint and makes a box of it: its target, opened by Ben,
// says the hint was taken. The invitation in German and Norwegian, and by keyboard at
// 1280×800. Cleo, nameless, closes the name question on "Make a box": it
// is not asked again that day, and comes back on a later one. The name's help on the
// Account tab says every place a name shows. Last, Anna moves to another phone: her
// friend code is shown there too (read from the server).
import { check, newPage, PHONE_TALL, playRound, run, screenshot, view } from './lib.mjs';

const SMALL = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

// Every 403 a page was answered, and every friends' board it asked for.
function watch(page) {
  const seen = { refused: [], boards: [] };
  page.on('response', (response) => {
    if (response.status() === 403) seen.refused.push(response.url());
  });
  page.on('request', (request) => {
    if (/\/v1\/daily\/[^/]+\/friends$/.test(new URL(request.url()).pathname)) seen.boards.push(request.url());
  });
  return seen;
}

async function noAnonymous(page, label) {
  const said = await page.locator('body').innerText();
  check(!/Anonym|Anoniem/i.test(said), `${label}: "Anonymous" (de, nb: "Anonym", nl: "Anoniem") nowhere on the page`);
}

async function friendsTab(page) {
  await page.getByRole('link', { name: 'Friends', exact: true }).click();
  await view(page).getByRole('heading', { name: 'Friends', level: 1 }).waitFor();
}

async function playToday(page) {
  await page.getByRole('link', { name: 'Daily Dice', exact: true }).click();
  await view(page).getByRole('button', { name: 'Start today’s round' }).click();
  await playRound(page);
  await view(page).locator('.result').waitFor({ timeout: 20000 });
}

await run(async (browser) => {
  // Anna: no name yet. The Friends tab offers the name field; making a code asks first.
  const anna = await newPage(browser, 'Anna', PHONE_TALL);
  const annaSeen = watch(anna);
  await anna.goto('/play#friends');
  await view(anna).getByRole('heading', { name: 'Friends', level: 1 }).waitFor();
  await view(anna).locator('.name-panel').getByRole('textbox', { name: 'Name' }).waitFor();
  await view(anna).locator('.friends-board').getByText('Play today’s Daily Dice first').waitFor();
  await view(anna).getByRole('button', { name: 'Make a friend code' }).click();
  const prompt = anna.locator('dialog.name-prompt');
  await prompt.getByText('Whoever redeems your code sees your name.').waitFor();
  // Cancelled: no code without a name.
  await prompt.getByRole('button', { name: 'Cancel' }).click();
  await view(anna).locator('.own-code').getByText('Your friend code shares your name').waitFor();
  check((await view(anna).locator('.friend-code .box-code').count()) === 0, 'no code made without a name');
  await view(anna).getByRole('button', { name: 'Make a friend code' }).click();
  await prompt.getByRole('textbox', { name: 'Name' }).fill('Anna');
  await prompt.getByRole('button', { name: 'Save name' }).click();
  const codeShown = view(anna).locator('.friend-code .box-code');
  await codeShown.waitFor();
  const code = await codeShown.getAttribute('data-code');
  const link = await view(anna).locator('.friend-link a').getAttribute('href');
  check(await view(anna).locator('.name-panel').isHidden(), 'the name field gone once named');
  await noAnonymous(anna, 'Anna with her code');
  await screenshot(anna, 'names-1-code-390');

  // Ben: no name yet, opens Anna's link. The invitation names her and asks his name.
  const ben = await newPage(browser, 'Ben', SMALL);
  const benSeen = watch(ben);
  await ben.goto(link);
  const invite = view(ben).locator('.invite-panel');
  await invite.getByText(`Anna invites you to be friends (code ${code})`).waitFor();
  const nameField = invite.getByRole('textbox', { name: 'Your name' });
  await nameField.waitFor();
  check(await nameField.evaluate((el) => el === document.activeElement), 'the name field has the focus');
  check((await invite.innerText()).includes('So Anna knows who you are.'), 'why the name is asked');
  check(await view(ben).locator('.name-panel').isHidden(), 'the name asked once on screen: in the invitation');
  await noAnonymous(ben, 'the invitation');
  await screenshot(ben, 'names-2-invite-360');
  await invite.getByRole('button', { name: 'Become friends' }).click();
  await invite.getByText('Enter your name first.').waitFor();
  check((await nameField.getAttribute('aria-invalid')) === 'true', 'an empty name refused');
  await nameField.fill('Ben');
  await invite.getByRole('button', { name: 'Become friends' }).click();
  await view(ben).locator('.invite-done').getByText('You and Anna are friends now.').waitFor();
  check((await ben.locator('dialog.name-prompt').count()) === 0, 'asked once: no other question');
  const benFriends = view(ben).locator('.friend-list .friend');
  await benFriends.filter({ hasText: 'Anna' }).waitFor();
  check(await view(ben).locator('.name-panel').isHidden(), 'Ben named: no name field');
  await noAnonymous(ben, 'Ben befriended');
  await screenshot(ben, 'names-3-befriended-360');

  // Anna sees Ben by his name.
  await anna.reload();
  await view(anna).locator('.friend-list .friend').filter({ hasText: 'Ben' }).waitFor();
  await noAnonymous(anna, 'Anna’s friends');
  check(annaSeen.boards.length === 0 && benSeen.boards.length === 0, `no board asked for before playing: ${[...annaSeen.boards, ...benSeen.boards]}`);

  // Both play today: two rows, two names, on both boards.
  for (const page of [ben, anna]) await playToday(page);
  for (const [page, me, them] of [[anna, 'Anna', 'Ben'], [ben, 'Ben', 'Anna']]) {
    await friendsTab(page);
    const rows = view(page).locator('.friends-board .board li');
    await rows.nth(1).waitFor();
    const names = await rows.locator('.results-name').allInnerTexts();
    check(names.length === 2 && names.includes(me) && names.includes(them), `${me}’s board: ${names}`);
    await noAnonymous(page, `${me}’s board`);
  }
  await screenshot(ben, 'names-4-board-360');
  await screenshot(anna, 'names-4-board-390');

  // A series: Ben's link shows it before he joins.
  const panel = view(anna).locator('.series');
  await panel.locator('.series-make > summary').click(); // the form is folded until wanted
  await panel.getByLabel('Elimination').check();
  await panel.getByLabel('Limit', { exact: true }).fill('45');
  await panel.getByLabel('Medium', { exact: true }).fill('1');
  await panel.getByRole('button', { name: 'Make a series' }).click();
  const seriesLink = await panel.locator('.series-link a').getAttribute('href');
  const seriesCode = decodeURIComponent(seriesLink.split('#series=')[1]);
  await ben.goto(seriesLink);
  const offer = view(ben).locator('.series-invite');
  await offer.getByRole('heading', { name: `Anna’s series ${seriesCode}` }).waitFor();
  const offered = await offer.innerText();
  check(offered.includes('Elimination: out at a total of 45'), `the format: ${offered}`);
  check(offered.includes('2 seats taken:') && offered.includes('Anna') && offered.includes('Medium'), `who sits at it: ${offered}`);
  check(offered.includes('Anna invites you to this series.'), `who invites: ${offered}`);
  await offer.scrollIntoViewIfNeeded();
  await screenshot(ben, 'names-5-series-invite-360');
  await offer.getByRole('button', { name: 'Join this series' }).click();
  await view(ben).locator('.series-current .standings').waitFor();
  for (const page of [ben, anna]) {
    await page.reload();
    const item = view(page).locator(`.series-mine .series-item[data-code="${seriesCode}"]`);
    await item.waitFor();
    check((await item.innerText()).includes('Round 1 to play'), `the series listed for its player: ${await item.innerText()}`);
  }
  await view(ben).locator('.series-mine').scrollIntoViewIfNeeded();
  await screenshot(ben, 'names-6-your-series-360');

  // A box of a Solo round played with a hint: its target says so.
  await anna.getByRole('link', { name: 'Solo', exact: true }).click();
  await view(anna).getByRole('button', { name: 'Roll the dice' }).click();
  await playRound(anna, {
    onMove: async (page, round, rollIndex) => {
      if (rollIndex === 0) {
        await round.getByRole('button', { name: 'Hint' }).click();
        await round.locator('.hint-panel .hint-option').first().waitFor();
      }
      return false;
    },
  });
  await view(anna).getByRole('button', { name: 'Make a Friend Box of this round' }).click();
  const boxCode = await view(anna).locator('.made-box .box-code').getAttribute('data-code');
  await ben.getByRole('link', { name: 'Friend Box', exact: true }).click();
  await view(ben).getByLabel('Box code').fill(boxCode);
  await view(ben).getByLabel(/With target/).check();
  await view(ben).getByRole('button', { name: 'Open box' }).click();
  const target = view(ben).locator('.box-info .target');
  await target.waitFor();
  const said = await target.innerText();
  check(/taking 1 hint\.$/.test(said), `the target says the hint: ${said}`);
  check(!/the owner shut the box \(score 0\)\.$/.test(said), 'not a shut box as if earned unaided');
  await screenshot(ben, 'names-7-hinted-target-360');

  // Cleo, nameless: the question closed on "Make a box" is not asked again that day, and
  // comes back on a later one.
  const cleo = await newPage(browser, 'Cleo', SMALL);
  await cleo.goto('/play#box');
  const makeBox = view(cleo).getByRole('button', { name: 'Make a box' });
  const cleoPrompt = cleo.locator('dialog.name-prompt');
  await makeBox.click();
  await cleoPrompt.getByRole('button', { name: 'Not now' }).click();
  await view(cleo).locator('.created .box-code').waitFor();
  const another = view(cleo).getByRole('button', { name: 'Make another box' }); // a box made: its card
  await another.click();
  await makeBox.click();
  await view(cleo).locator('.created .box-code').waitFor();
  check((await cleoPrompt.count()) === 0, 'not asked twice in a day');
  await cleo.evaluate(() => {
    const { id } = JSON.parse(localStorage.getItem('shutbox.player'));
    const key = `shutbox.nameAsked.${id}`;
    localStorage.setItem(key, JSON.stringify({ ...JSON.parse(localStorage.getItem(key)), day: '2026-01-01' }));
  });
  await another.click();
  await makeBox.click();
  await cleoPrompt.getByRole('heading', { name: 'What should your friends call you?' }).waitFor();
  check((await cleoPrompt.innerText()).includes('Daily Dice top list'), 'the question says where names show');
  await screenshot(cleo, 'names-8-asked-again-360');
  await cleoPrompt.getByRole('button', { name: 'Not now' }).click();

  // The invitation in German (a 360 px phone) and Norwegian (390 px): the owner named, the
  // name asked, in the page's language.
  for (const [locale, options, said, asked, shot] of [
    ['de-DE', SMALL, 'Anna lädt dich ein, Freunde zu werden', 'Dein Name', 'names-10-invite-de-360'],
    ['nb-NO', PHONE_TALL, 'Anna inviterer deg til å bli venner', 'Navnet ditt', 'names-11-invite-nb-390'],
  ]) {
    const page = await newPage(browser, locale, { ...options, locale });
    await page.goto(link);
    const panel = view(page).locator('.invite-panel');
    await panel.getByText(said).waitFor();
    await panel.getByRole('textbox', { name: asked }).waitFor();
    await noAnonymous(page, locale);
    await screenshot(page, shot);
    await page.context().close();
  }

  // By keyboard on a desktop (1280×800): the name typed, Enter says yes.
  const eve = await newPage(browser, 'Eve', { viewport: { width: 1280, height: 800 } });
  await eve.goto(link);
  await view(eve).locator('.invite-panel').getByText('Anna invites you').waitFor();
  await eve.waitForFunction(() => document.activeElement?.matches('.invite-panel input'));
  await eve.keyboard.type('Eve');
  await eve.keyboard.press('Enter');
  await view(eve).locator('.invite-done').getByText('You and Anna are friends now.').waitFor();
  check((await eve.locator('dialog.name-prompt').count()) === 0, 'Eve asked once');
  await screenshot(eve, 'names-12-keyboard-1280');

  // The name's help on the Account tab says every place it shows.
  await anna.goto('/play#account');
  const help = await view(anna).locator('.player-card .field-help').first().innerText();
  check(help.includes('Friend Box results') && help.includes('series standings') && help.includes('Daily Dice top list') && help.includes('friends’ lists'), `the name's help: ${help}`);

  // Anna on another phone: her friend code is there too.
  await view(anna).getByRole('button', { name: 'Get a transfer code' }).click();
  const transfer = await view(anna).locator('.transfer-code .box-code').getAttribute('data-code');
  const second = await newPage(browser, 'Anna’s second phone', SMALL);
  await second.goto('/play#account');
  await second.getByRole('textbox', { name: 'Transfer code' }).fill(transfer);
  await second.getByRole('button', { name: 'Move my player here' }).click();
  await view(second).getByText('Welcome back, Anna!').waitFor();
  await friendsTab(second);
  await view(second).locator(`.friend-code .box-code[data-code="${code}"]`).waitFor();
  await screenshot(second, 'names-9-code-on-another-phone-360');

  check(annaSeen.refused.length === 0 && benSeen.refused.length === 0, `no 403: ${[...annaSeen.refused, ...benSeen.refused]}`);
});
