// A streak kept by a freeze, in each of the four languages. Each player (made by the test:
// SHUTBOX_STREAK_PLAYERS, in UTC) played seven dates in a row, through the day before
// yesterday, and missed yesterday: the seventh date earned a freeze, yesterday spent it.
// The Daily Dice tab says so before today's round (the streak goes on, and when today
// closes, with the streak at stake), and today's result shows the streak kept and grown
// to 8, no freeze left, in the page's language; the history lists yesterday as frozen.
import { check, newPage, playRound, run, screenshot, view } from './lib.mjs';

const players = JSON.parse(process.env.SHUTBOX_STREAK_PLAYERS ?? '[]');
check(players.length === 4, `four players prepared: ${players.length}`);

const LANGUAGES = {
  en: { locale: 'en-GB', kept: 'A streak freeze covered 1 missed day: your streak of 7 goes on.', closes: 'Today closes', start: 'Start today’s round', days: '8 days' },
  de: { locale: 'de-DE', kept: '1 verpasster Tag war durch Serienschutz gedeckt: Deine Serie von 7 geht weiter.', closes: 'Der heutige Tag endet am', start: 'Heutige Runde starten', days: '8 Tage' },
  nb: { locale: 'nb-NO', kept: 'Rekkefrys dekket 1 dag du gikk glipp av: rekken din på 7 fortsetter.', closes: 'Dagen i dag stenger', start: 'Start dagens runde', days: '8 dager' },
  nl: { locale: 'nl-NL', kept: 'Een reeksbevriezing dekte 1 gemiste dag: je reeks van 7 gaat door.', closes: 'Vandaag sluit op', start: 'Begin de ronde van vandaag', days: '8 dagen' },
};

await run(async (browser) => {
  for (const player of players) {
    const wanted = LANGUAGES[player.language];
    const page = await newPage(browser, `streak-${player.language}`, { locale: wanted.locale });
    await page.addInitScript((stored) => {
      if (!localStorage.getItem('shutbox.player')) localStorage.setItem('shutbox.player', stored);
    }, JSON.stringify({ id: player.id, token: player.token, name: null, time_zone: 'UTC' }));
    await page.goto('/play');
    await page.waitForFunction((code) => document.documentElement.lang === code, player.language);

    const kept = view(page).locator('.freeze-note');
    await kept.waitFor();
    check((await kept.innerText()) === wanted.kept, `the freeze spent, the streak kept: ${await kept.innerText()}`);
    const closes = view(page).locator('.closes-line');
    check((await closes.innerText()).startsWith(wanted.closes), `when today closes: ${await closes.innerText()}`);
    check(await closes.evaluate((line) => line.classList.contains('at-risk')), 'today is at risk');
    await screenshot(page, `streak-${player.language}-1-kept`);

    await view(page).getByRole('button', { name: wanted.start }).click();
    await playRound(page);
    await view(page).locator('.result').waitFor({ timeout: 20000 });
    check((await view(page).locator('.freeze-note').count()) === 0, 'played: the note is gone');
    const streak = await view(page).locator('.stat.streak .stat-value').innerText();
    check(streak === wanted.days, `the streak grown to 8: ${streak}`);
    check((await view(page).locator('.stat.freezes .stat-value').innerText()) === '0', 'no freeze left');
    const answer = await page.request.get('/v1/players/me/streak', { headers: { Authorization: `Bearer ${player.token}` } });
    const shown = await answer.json();
    check(shown.current === 8 && shown.best === 8 && shown.freezes === 0, `the API's streak: ${JSON.stringify(shown)}`);
    const history = await (await page.request.get('/v1/players/me/history?limit=3', { headers: { Authorization: `Bearer ${player.token}` } })).json();
    check(history[1]?.frozen === true && history[1].score === undefined, `yesterday frozen in the history: ${JSON.stringify(history)}`);
    await screenshot(page, `streak-${player.language}-2-result`);
    await page.context().close();
  }
});
