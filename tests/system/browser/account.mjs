// Moving a player to another device: the old browser asks for a transfer code, the new
// one claims it and becomes that player (same name, a new token); the old browser is
// told in words that its player moved to another device (not the API's "This token
// belongs to no player." with a "Try again" that can't help), and is offered what helps:
// a transfer code field, or starting as a new player. A page left open keeps its "time
// there now" to the minute.
import { check, newPage, pageModule, run, screenshot, view } from './lib.mjs';

await run(async (browser) => {
  const old = await newPage(browser, 'old device');
  await old.goto('/play#account');
  const name = old.getByRole('textbox', { name: 'Name' });
  await name.waitFor();
  await name.fill('Carol');
  await old.getByRole('button', { name: 'Save name' }).click();
  await view(old).getByText('Saved.').waitFor();
  const before = await old.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));

  await old.getByRole('button', { name: 'Get a transfer code' }).click();
  const shown = view(old).locator('.transfer-code .box-code');
  await shown.waitFor();
  const code = await shown.getAttribute('data-code');
  check(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{5}$/.test(code), `a transfer code: ${code}`);
  const expiry = await view(old).locator('.transfer-code').innerText();
  check(/Valid until \p{L}+ \d{1,2}, \d{4} at \d{1,2}:\d{2}\s[AP]M \(UTC\)/u.test(expiry), `its expiry, in the player's zone named: ${expiry}`);
  await screenshot(old, 'account-1-transfer-code');

  const fresh = await newPage(browser, 'new device');
  await fresh.goto('/play#account');
  await view(fresh).getByRole('textbox', { name: 'Name' }).waitFor();
  const other = await fresh.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
  check(other.id !== before.id, 'the new device started as a player of its own');
  // A mistyped code first (one symbol changed), then the code.
  const typo = (code[0] === 'Z' ? 'Y' : 'Z') + code.slice(1);
  const input = fresh.getByRole('textbox', { name: 'Transfer code' });
  await input.fill(typo);
  await fresh.getByRole('button', { name: 'Move my player here' }).click();
  await view(fresh).locator('.error').filter({ hasText: /mistyped/i }).waitFor();
  await input.fill(code);
  await fresh.getByRole('button', { name: 'Move my player here' }).click();
  await view(fresh).getByText('Welcome back, Carol!').waitFor();
  const after = await fresh.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
  check(after.id === before.id && after.token !== before.token && after.name === 'Carol', 'the same player with a new token');
  await fresh.getByRole('textbox', { name: 'Name' }).filter({ hasText: '' }).waitFor();
  check((await fresh.getByRole('textbox', { name: 'Name' }).inputValue()) === 'Carol', 'the name shown');
  await screenshot(fresh, 'account-2-claimed');

  // The old browser's token is spent: it says so, and offers a code or a new player.
  await old.goto('/play#daily');
  await old.reload();
  await old.getByRole('button', { name: 'Start as a new player' }).waitFor();
  const banner = old.locator('.banner');
  check(/moved to another device/.test(await banner.innerText()), `the banner says why: ${await banner.innerText()}`);
  await view(old).locator('.error.moved').filter({ hasText: 'moved to another device' }).waitFor();
  const said = await old.locator('main').innerText();
  check(!said.includes('This token belongs to no player'), `no token jargon: ${said}`);
  check((await view(old).getByRole('button', { name: 'Try again' }).count()) === 0, 'no Try again that cannot help');
  await old.getByRole('button', { name: 'I have a transfer code' }).click();
  await old.waitForFunction(() => document.activeElement?.matches('.view-account .code-input'));
  check((await view(old).getByRole('button', { name: 'Try again' }).count()) === 0, 'no Try again on the account either');
  await view(old).locator('.player-card .error.moved').waitFor();
  check(await view(old).locator('.player-stats').isHidden(), 'no statistics for a player gone');
  check(await view(old).getByRole('button', { name: 'Get a transfer code' }).isHidden(), 'nor a transfer code to offer');
  await screenshot(old, 'account-3-old-device'); // a phone-width shot below
  await old.setViewportSize({ width: 390, height: 844 });
  await screenshot(old, 'account-4-old-device-phone');
  await old.getByRole('button', { name: 'Start as a new player' }).click();
  await view(old).getByRole('textbox', { name: 'Name' }).waitFor();
  const renewed = await old.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
  check(renewed && renewed.id !== before.id, 'a new player on the old device');

  // A page left open keeps the time in the player's zone to the minute: three minutes
  // on (the page's clock run ahead), it says the time three minutes on.
  const open = await newPage(browser, 'left open');
  const start = Date.now();
  await open.clock.install({ time: start });
  await open.goto('/play#account');
  const zoneNow = view(open).locator('.zone-now');
  await zoneNow.waitFor();
  // Held 20 s into a minute to come: no minute turns between a look and a check.
  await open.clock.pauseAt(Math.ceil(start / 60_000) * 60_000 + 80_000);
  const timeThere = async () => open.evaluate((url) => import(url).then((m) => m.formatTime(Date.now(), 'UTC')), await pageModule(open, 'strings.js'));
  const first = await timeThere();
  check((await zoneNow.innerText()).endsWith(first), `the time now: ${await zoneNow.innerText()}`);
  await open.clock.runFor('03:00');
  const later = await timeThere();
  check(later !== first, `three minutes on: ${first} → ${later}`);
  check((await zoneNow.innerText()).endsWith(later), `the time three minutes on: ${await zoneNow.innerText()}`);
});
