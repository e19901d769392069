// Moving a player to another device: the old browser asks for a transfer code, the new
// one claims it and becomes that player (same name, a new token); the old browser is
// told it is no longer signed in and may start as a new player.
import { check, newPage, run, screenshot, view } from './lib.mjs';

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
  check(/Valid until/.test(await view(old).locator('.transfer-code').innerText()), 'its expiry shown');
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

  // The old browser's token is spent: it says so, and offers a new player.
  await old.reload();
  await old.getByRole('button', { name: 'Start as a new player' }).waitFor();
  await screenshot(old, 'account-3-old-device');
  await old.getByRole('button', { name: 'Start as a new player' }).click();
  await view(old).getByRole('textbox', { name: 'Name' }).waitFor();
  const renewed = await old.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
  check(renewed && renewed.id !== before.id, 'a new player on the old device');
});
