// The page in the player's language. A German (Austrian) browser gets the page in
// German: <html lang="de">, its words and dates, and API calls that ask for German, so
// that a problem's detail from the server is German too. The switcher in the header
// (a select, worked with the keyboard) changes it to Norwegian (bokmål): the page's
// words, the server's texts shown on it (a problem's detail, the Daily Dice share text
// and analysis labels), the player's stored language (a request naming none of ours
// gets Norwegian), and the choice kept over a reload. Dutch and English on the way out.
import { check, newPage, playRound, run, screenshot, text, view } from './lib.mjs';

const NAMES = ['English', 'Norsk bokmål', 'Nederlands', 'Deutsch'];
const NORWEGIAN_LABELS = ['best', 'unøyaktighet', 'feil', 'tabbe'];

async function htmlLang(page) {
  return page.evaluate(() => document.documentElement.lang);
}

// Keys on the focused language select until it shows the wanted language: each change
// builds the page again in that language and gives the focus back to the select.
async function chooseWithKeys(page, wanted) {
  const select = page.locator('#language');
  await select.focus();
  for (let step = 0; step < NAMES.length; step += 1) {
    const now = await select.inputValue();
    if (now === wanted) return;
    const order = ['en', 'nb', 'nl', 'de'];
    await page.keyboard.press(order.indexOf(wanted) < order.indexOf(now) ? 'ArrowUp' : 'ArrowDown');
    await page.waitForFunction((code) => document.documentElement.lang !== code && document.activeElement?.id === 'language', now);
  }
  check((await select.inputValue()) === wanted, `the switcher shows ${wanted}`);
}

await run(async (browser) => {
  const page = await newPage(browser, 'language', { locale: 'de-AT', timezoneId: 'Europe/Vienna' });
  const asked = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/v1/')) asked.push(`${request.method()} ${url.pathname} ${request.headers()['accept-language']}`);
  });

  // German, from the browser's de-AT.
  await page.goto('/play#box');
  await page.getByRole('link', { name: 'Konto' }).waitFor();
  check((await htmlLang(page)) === 'de', `<html lang> is ${await htmlLang(page)}`);
  await view(page).getByText('Spiel mit denselben Würfen wie deine Freunde').waitFor();
  check((await page.locator('.brand-tagline').innerText()) === 'Schließ die Klappen, schlag die Würfel.', 'the tagline in German');
  const switcher = page.getByLabel('Sprache');
  check((await switcher.inputValue()) === 'de', 'the switcher shows Deutsch');
  const names = await switcher.locator('option').allInnerTexts();
  check(JSON.stringify(names) === JSON.stringify(NAMES), `each language by its own name: ${names}`);
  // A server text: a mistyped box code's problem detail, in German.
  await page.getByLabel('Box-Code').fill('ZZZZ-ZZZZZ');
  await view(page).getByRole('button', { name: 'Box öffnen' }).click();
  await view(page).locator('.error').filter({ hasText: /vertippt|keine Box/ }).waitFor();
  await view(page).locator('summary').filter({ hasText: 'Regeln' }).click();
  check((await view(page).locator('.rules-form select[name="tiles"] option:checked').innerText()) === '1 bis 9', 'the rules form in German');
  await screenshot(page, 'language-1-de');
  check(asked.length > 0 && asked.every((line) => line.endsWith(' de')), `the API asked in German:\n${asked.join('\n')}`);

  // The account page's date, written the German way.
  await page.getByRole('link', { name: 'Konto' }).click();
  const since = view(page).locator('.player-card p.small');
  await since.waitFor();
  const today = await page.evaluate(() => new Intl.DateTimeFormat('de-DE', { dateStyle: 'full', timeZone: 'UTC' }).format(new Date()));
  check((await since.innerText()) === `Dabei seit ${today}`, `the date in German: ${await since.innerText()}`);

  // Norsk bokmål with the switcher, by keyboard; the player's language follows.
  const stored = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/v1/players/me') && r.request().postData()?.includes('"nb"'));
  await chooseWithKeys(page, 'nb');
  await page.waitForFunction(() => document.documentElement.lang === 'nb');
  const patched = await stored;
  check(patched.ok() && (await patched.json()).language === 'nb', 'PATCH /v1/players/me stored nb');
  check((await page.evaluate(() => localStorage.getItem('shutbox.language'))) === 'nb', 'the choice kept in localStorage');
  check((await page.evaluate(() => document.activeElement?.id)) === 'language', 'the focus stays on the switcher');
  await view(page).getByRole('heading', { name: 'Konto' }).waitFor();
  await view(page).getByText('Spilleren din bor i denne nettleseren').waitFor();
  check((await page.getByLabel('Språk').inputValue()) === 'nb', 'the switcher is labelled in Norwegian');
  check((await page.title()) === 'Konto · Shut the Box Challenge', `the title: ${await page.title()}`);

  // A server text on the page in Norwegian: the mistyped code again.
  await page.getByRole('link', { name: 'Friend Box' }).click();
  await page.getByLabel('Bokskode').fill('ZZZZ-ZZZZZ');
  await view(page).getByRole('button', { name: 'Åpne boksen' }).click();
  const problem = view(page).locator('.error').filter({ hasText: /skrivefeil|finnes ingen boks/ });
  await problem.waitFor();

  // Daily Dice in Norwegian, to its share text and analysis labels (the server's words).
  asked.length = 0;
  await page.getByRole('link', { name: 'Daily Dice' }).click();
  await view(page).getByRole('button', { name: 'Start dagens runde' }).click();
  await view(page).locator('.round .keys').filter({ hasText: 'Taster: 1–9 velger en brikke' }).waitFor();
  await playRound(page, { keyboard: true });
  await view(page).locator('.result').waitFor({ timeout: 20000 });
  check((await view(page).locator('.hero-label').textContent()) === 'Resultat', 'the score labelled Resultat');
  check(/^1 dag/.test(await text(page, '.stat.streak .stat-value')), `the streak: ${await text(page, '.stat.streak')}`);
  check(/ av /.test(await text(page, '.stat.rank .stat-value')) && /Bedre enn/.test(await text(page, '.stat.rank')), 'the rank in Norwegian');
  const share = view(page).locator('.share-text');
  await share.filter({ hasText: /Shut the Box Challenge \d{1,2}\. \p{Ll}+ \d{4}/u }).waitFor();
  const shareText = await share.innerText();
  check(/Resultat \d+ på \d+ kast|Lukket boksen på \d+ kast!/.test(shareText), `the share text in Norwegian: ${shareText}`);
  const labels = await view(page).locator('.moves .chip').allTextContents();
  check(labels.length > 0 && labels.every((label) => NORWEGIAN_LABELS.includes(label)), `the analysis labels: ${labels}`);
  check(asked.every((line) => line.endsWith(' nb')), `the API asked in Norwegian:\n${asked.join('\n')}`);
  await screenshot(page, 'language-2-nb');

  // Without a language of ours, the server writes in the player's stored one.
  const player = await page.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')));
  const day = await page.evaluate(() => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Vienna' }).format(new Date()));
  const answer = await page.request.get(`/v1/daily/${day}/share`, { headers: { Authorization: `Bearer ${player.token}`, 'Accept-Language': 'fr' } });
  check(answer.ok(), `the share text without our language (${answer.status()})`);
  check((await answer.json()).text === shareText, 'the same Norwegian share text from the stored language');

  // The choice holds over a reload, whatever the browser says.
  await page.reload();
  await view(page).locator('.result').waitFor();
  check((await htmlLang(page)) === 'nb', 'still Norwegian after a reload');
  await view(page).locator('.note').filter({ hasText: 'Du har spilt i dag' }).waitFor();

  // Dutch, then English, on a phone-sized window.
  await page.setViewportSize({ width: 375, height: 667 });
  await page.locator('#language').selectOption('nl');
  await page.waitForFunction(() => document.documentElement.lang === 'nl');
  await view(page).locator('.hero-label').filter({ hasText: 'Score' }).waitFor();
  await view(page).locator('.stat.streak').filter({ hasText: 'Reeks' }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `the Dutch page fits the phone's width (${overflow} px over)`);
  await screenshot(page, 'language-3-nl-phone');
  await page.locator('#language').selectOption('en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await view(page).locator('.note').filter({ hasText: 'You have played today' }).waitFor();
});
