// The page in the player's language. A German (Austrian) browser gets the page in
// German: <html lang="de">, its words and dates, and API calls that ask for German, so
// that a problem's detail from the server is German too. The switcher in the header
// (a select, worked with the keyboard) changes it to Norwegian (bokmål): the page's
// words, the server's texts shown on it (a problem's detail, the Daily Dice share text
// and analysis labels), the player's stored language (a request naming none of ours
// gets Norwegian), and the choice kept over a reload. Dutch and English on the way out.
// Then, on a phone in German and Norwegian: the time zone picker (every zone by city and
// offset, sorted by offset; the time there changing with the choice), the lock on a
// second change within 24 hours said with a date and time the language's way (not ISO),
// and the rules summary in words, not the rules form's one-word choices.
import { baseUrl, check, newPage, openSoloRules, pageModule, PHONE, playRound, run, screenshot, text, view } from './lib.mjs';

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
  const today = await page.evaluate(() => new Intl.DateTimeFormat('de-DE', { dateStyle: 'full', timeZone: 'Europe/Vienna' }).format(new Date()));
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
  const submitted = page.waitForResponse((r) => /^\/v1\/daily\/[^/]+\/runs$/.test(new URL(r.url()).pathname) && r.request().method() === 'POST', { timeout: 60000 });
  await playRound(page, { keyboard: true });
  await view(page).locator('.result').waitFor({ timeout: 20000 });
  const { rank } = await (await submitted).json();
  check((await view(page).locator('.hero-label').textContent()) === 'Resultat', 'the score labelled Resultat');
  check(/^1 dag/.test(await text(page, '.stat.streak .stat-value')), `the streak: ${await text(page, '.stat.streak')}`);
  // The rank's note in the page's words for it (alone, first, tied... in Norwegian).
  const rankNote = await page.evaluate(([url, r]) => import(url).then((m) => m.rankNote(r)), [await pageModule(page, 'result.js'), rank]);
  check(/ av /.test(await text(page, '.stat.rank .stat-value')) && (await text(page, '.stat.rank .stat-note')) === rankNote, `the rank in Norwegian: ${rankNote}`);
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
  // (The page adds the link that opens the game on the date.)
  check(`${(await answer.json()).text}\n${baseUrl}/play#daily=${day}` === shareText, 'the same Norwegian share text from the stored language');

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

  await zonesAndDates(browser);
});

// A zone's offset from UTC now in minutes, as the browser has it ("GMT+5:30": 330).
function offsetOf(zone) {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(new Date())
    .find((part) => part.type === 'timeZoneName').value;
  const found = name.match(/([+-])(\d+)(?::(\d+))?$/);
  return found ? (found[1] === '-' ? -1 : 1) * (Number(found[2]) * 60 + Number(found[3] ?? 0)) : 0;
}

// The name of an offset as the picker writes it: "UTC+1", "UTC+5:30", "UTC".
function offsetName(minutes) {
  if (!minutes) return 'UTC';
  const size = Math.abs(minutes);
  return `UTC${minutes < 0 ? '-' : '+'}${Math.floor(size / 60)}${size % 60 ? `:${String(size % 60).padStart(2, '0')}` : ''}`;
}

// A date and time as a language writes it, in a zone: "3. Dezember 2026 um 04:03".
function written(locale, zone, iso) {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: zone }).format(new Date(iso));
}

async function zonesAndDates(browser) {
  const page = await newPage(browser, 'zones', { ...PHONE, viewport: { width: 390, height: 844 }, locale: 'de-DE', timezoneId: 'Europe/Oslo' });
  await page.goto('/play#account');
  const picker = view(page).locator('select.zone-select');
  await picker.waitFor();
  check((await htmlLang(page)) === 'de', 'the page in German');
  check((await picker.inputValue()) === 'Europe/Oslo', `the device's zone chosen: ${await picker.inputValue()}`);
  const oslo = await picker.locator('option:checked').innerText();
  const osloOffset = await page.evaluate(offsetOf, 'Europe/Oslo');
  check(oslo === `Oslo (${offsetName(osloOffset)})`, `Oslo by city and offset: ${oslo}`);

  // Every zone by its city and its offset now, sorted by offset.
  const choices = await picker.locator('option').evaluateAll((options) => options.map((o) => ({ zone: o.value, name: o.textContent })));
  check(choices.length > 300, `the browser's zones offered: ${choices.length}`);
  let previous = -Infinity;
  for (const { zone, name } of choices) {
    const offset = await page.evaluate(offsetOf, zone);
    const city = zone.includes('/') ? zone.split('/').pop().replaceAll('_', ' ') : null;
    check(name === (city ? `${city} (${offsetName(offset)})` : offsetName(offset)), `${zone} named ${name}`);
    check(offset >= previous, `sorted by offset: ${zone} (${offset}) after ${previous}`);
    previous = offset;
  }
  check(choices.some((c) => c.zone === 'UTC' && c.name === 'UTC'), 'UTC among them');

  // The time there now follows the choice, written the German way: the minute it was
  // chosen in (this one, or the one before when a minute turned since).
  const now = view(page).locator('.zone-now');
  const showsNow = async (zone) => page.waitForFunction(([el, z]) => [0, 60000].some((ago) => el.textContent.includes(
    new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: z }).format(new Date(Date.now() - ago)))), [await now.elementHandle(), zone]);
  await showsNow('Europe/Oslo');
  await picker.selectOption('Asia/Tokyo');
  await showsNow('Asia/Tokyo');
  check(/\d{1,2}\. \p{L}+ \d{4} um \d{2}:\d{2}/u.test(await now.innerText()), `the time in German: ${await now.innerText()}`);
  const save = view(page).locator('.zone-field button[type="submit"]');
  const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/v1/players/me'));
  await save.click();
  check((await saved).ok(), 'the first change of zone taken');
  await view(page).locator('.player-card .good').waitFor();
  check((await picker.inputValue()) === 'Asia/Tokyo', 'Tokyo chosen');
  check((await page.evaluate(() => JSON.parse(localStorage.getItem('shutbox.player')).time_zone)) === 'Asia/Tokyo', 'and stored');

  // A second change within 24 hours: refused, and said with the date the German way in
  // the player's zone, named as the picker names it.
  const lockMessage = async (locale, at) => {
    await picker.selectOption('America/New_York');
    const refused = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/v1/players/me'));
    await save.click();
    const answer = await refused;
    check(answer.status() === 409, `a second change refused (${answer.status()})`);
    const { possible_at: possibleAt } = await answer.json();
    const note = view(page).locator('.player-card .error');
    await note.waitFor();
    const said = await note.innerText();
    const expected = `${written(locale, 'Asia/Tokyo', possibleAt)} (Tokyo, UTC+9)`;
    check(said.includes(expected), `the lock message names ${expected}: ${said}`);
    check(at.test(said), `the time the language's way: ${said}`);
    check(!/\d{4}-\d{2}-\d{2}|\d UTC\b/.test(said), `no ISO date nor bare UTC: ${said}`);
    check((await picker.inputValue()) === 'Asia/Tokyo', 'the picker back on the zone kept');
    return said;
  };
  await lockMessage('de-DE', /\d{1,2}\. \p{L}+ \d{4} um \d{2}:\d{2}/u);
  await screenshot(page, 'language-4-de-zone-lock-phone');

  // The rules summary in words: no part of it one of the rules form's one-word choices.
  const summary = async () => {
    await page.goto('/play#solo');
    await openSoloRules(page);
    await view(page).locator('.rules-form select[name="one_die"]').selectOption('high_closed');
    await view(page).locator('.rules-form select[name="scoring"]').selectOption('count');
    await view(page).locator('.solo-setup button[type="submit"]').click();
    const line = await text(page, '.rules-line');
    const words = await view(page).locator('.rules-form option').allTextContents();
    const parts = line.split(' · ');
    check(parts.length === 4 && /^9 /.test(parts[0]), `tiles, moves, one die, scoring: ${line}`);
    check(parts.slice(1).every((part) => part.split(/\s+/).length >= 4 && !words.includes(part)), `in words, not the form's choices: ${line}`);
    await view(page).locator('.rules-bar button').click(); // back to the rules: no round kept
    await view(page).locator('.solo-setup').waitFor();
    return line;
  };
  await summary();

  // Norwegian: the same lock, written the Norwegian way.
  await page.goto('/play#account');
  await page.locator('#language').selectOption('nb');
  await page.waitForFunction(() => document.documentElement.lang === 'nb');
  await picker.waitFor();
  check((await picker.locator('option:checked').innerText()) === 'Tokyo (UTC+9)', 'Tokyo by city and offset in Norwegian');
  await lockMessage('nb-NO', /\d{1,2}\. \p{L}+ \d{4} kl\. \d{2}:\d{2}/u);
  await screenshot(page, 'language-5-nb-zone-lock-phone');
  await summary();

  // In English, word for word.
  await page.locator('#language').selectOption('en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  const line = await summary();
  check(line === '9 tiles · any tiles that add up to the roll · one die allowed once 7 and up are shut · scored by how many tiles are left open', `the summary: ${line}`);
}
