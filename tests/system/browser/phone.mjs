// The board and the result on phones (360×800 and 390×844, touch): every tile of a 9-tile
// and a 12-tile round at least 44×44; after each action (dice rolled, tiles closed, the
// hint, the round over) what it made is in view and has the focus; the three states of a
// tile (usable, of no use on this roll, not fitting the tiles picked) look different; a
// digits score (12 tiles) is the number the open tiles read, on one line inside its card;
// and the rank reads right alone, first, last and tied.
import { check, newPage, openSoloRules, pageModule, playRound, run, screenshot, view } from './lib.mjs';

const PHONES = [
  { name: '360', viewport: { width: 360, height: 800 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  { name: '390', viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
];
const TOUCH = 44; // px: the smallest target a finger hits reliably

async function inView(page, locator, what) {
  const b = await locator.boundingBox();
  const { width, height } = page.viewportSize();
  check(b && b.x >= 0 && b.y >= 0 && b.x + b.width <= width && b.y + b.height <= height,
    `${what} in view: ${JSON.stringify(b)} in ${width}×${height}`);
}

async function focused(page, locator, what) {
  check(await locator.evaluate((el) => el === document.activeElement),
    `${what} has the focus (it is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120))})`);
}

async function tilesBigEnough(round, count, what) {
  const tiles = round.locator('.tile');
  check((await tiles.count()) === count, `${count} tiles`);
  for (let i = 0; i < count; i += 1) {
    const b = await tiles.nth(i).boundingBox();
    check(b && b.width >= TOUCH && b.height >= TOUCH, `${what}: tile ${i + 1} is ${b?.width}×${b?.height}, under ${TOUCH}×${TOUCH}`);
  }
}

// After the dice of a roll: its dice, the tiles and the Close button in view, the focus
// on the first tile that can be used.
async function rollShown(page, round, what) {
  await inView(page, round.locator('.dice'), `${what}: the dice`);
  await inView(page, round.locator('.tiles'), `${what}: the tiles`);
  await inView(page, round.locator('.actions button.primary'), `${what}: the Close button`);
  await focused(page, round.locator('.tile:not([disabled])').first(), `${what}: the first usable tile`);
}

async function resultShown(page, what) {
  const heading = view(page).locator('.result .result-title');
  await heading.waitFor({ timeout: 30000 });
  await inView(page, heading, `${what}: the result's heading`);
  await focused(page, heading, `${what}: the result's heading`);
}

// Every score-like figure of the result on one line inside its card.
async function figuresFit(page, what) {
  const figures = await view(page).locator('.result').evaluate((result) => [
    ['.hero-value', '.hero'],
    ['.best-possible .stat-value', '.best-possible'],
    ['.total-cost .stat-value', '.total-cost'],
    ...['you', 'easy', 'medium', 'hard'].map((p) => [`.computer-player[data-player="${p}"] .computer-score`, `.computer-player[data-player="${p}"]`]),
  ].map(([figure, card]) => {
    const el = result.querySelector(figure);
    const box = el.getBoundingClientRect();
    const cardBox = result.querySelector(card).getBoundingClientRect();
    return {
      figure,
      text: el.textContent,
      scroll: el.scrollWidth,
      client: el.clientWidth,
      inside: box.left >= cardBox.left && box.right <= cardBox.right && box.top >= cardBox.top && box.bottom <= cardBox.bottom,
      oneLine: box.height < parseFloat(getComputedStyle(el).fontSize) * 1.6,
    };
  }));
  for (const f of figures) {
    check(f.scroll <= f.client && f.inside && f.oneLine, `${what}: ${f.figure} "${f.text}" fits its card: ${JSON.stringify(f)}`);
  }
  return figures;
}

// The analysis as the page words it, against the API's figures: a roll that cost nothing
// never shows a cost, a label never contradicts its cost, and nothing reads "+0".
async function analysisReads(page, analysed, what) {
  const { analysis } = await (await analysed).json();
  const rows = await view(page).locator('.result .moves .move').allInnerTexts();
  check(rows.length === analysis.moves.length, `${what}: one row a roll`);
  analysis.moves.forEach((m, i) => {
    const row = rows[i];
    const says = (words) => row.includes(words);
    if (m.hindsight_cost > 0) {
      check(says(`it cost ${m.hindsight_cost}:`) && !says('Cost nothing'), `${what}: roll ${i + 1} cost ${m.hindsight_cost}: ${row}`);
      check(says('The best odds at the time, but') === (m.label === 'best'), `${what}: roll ${i + 1}, ${m.label} and cost ${m.hindsight_cost}: ${row}`);
    } else {
      check(!/cost \d/.test(row), `${what}: roll ${i + 1} cost nothing, no cost shown: ${row}`);
      check(says('Cost nothing on these dice, but a risky choice') === (m.label !== 'best'), `${what}: roll ${i + 1}, ${m.label} at no cost: ${row}`);
    }
  });
  const all = await view(page).locator('.result').innerText();
  check(!/\+0\b/.test(all), `${what}: no "+0" in the result`);
  const summary = await view(page).locator('.result .summary').innerText();
  const risky = analysis.moves.filter((m) => m.label !== 'best').length;
  if (analysis.total_cost === 0) check(summary.includes('best possible score') && summary.includes('gamble') === (risky > 0), `${what}: the summary at no cost: ${summary}`);
  else check(summary.includes(`cost ${analysis.total_cost}`), `${what}: the summary says the cost: ${summary}`);
}

const analyzed = (page) => page.waitForResponse((r) => r.url().endsWith('/v1/analyze') && r.request().method() === 'POST', { timeout: 60000 });

// The player's rounds of Solo on dice set in advance: deals of those dice, signed with the
// server's secret by the test's preparation (SHUTBOX_SOLO_DEALS, by name), kept in the
// browser (as a reload keeps a round) so that the page resumes them.
const SOLO_DEALS = JSON.parse(process.env.SHUTBOX_SOLO_DEALS || '{}');

function soloDeal(name, moves = []) {
  const dealt = SOLO_DEALS[name];
  if (!dealt) throw new Error(`no deal ${name}: run through tests/system/browser/test_play.py`);
  return { ...dealt, moves, hints: 0 };
}

async function keptRound(page, name) {
  await page.evaluate((kept) => localStorage.setItem('shutbox.solo', JSON.stringify(kept)), soloDeal(name));
  await page.reload();
  const round = view(page).locator('.round');
  await round.waitFor();
  return round;
}

// Play a round by taps, checking what each Close made.
async function playChecked(page, what) {
  let checked = 0;
  await playRound(page, {
    onMove: async (p, round, index) => {
      if (index > 0) {
        await rollShown(p, round, `${what}, roll ${index + 1}`);
        checked += 1;
      }
      return false;
    },
  });
  return checked;
}

async function phone(browser, device) {
  const { name } = device;
  const page = await newPage(browser, `phone-${name}`, device);
  await page.goto('/play#solo');

  // 9 tiles: two rows; the first roll's tiles in view and focused.
  await openSoloRules(page);
  await page.getByRole('combobox', { name: 'Tiles' }).selectOption('9');
  await page.getByRole('button', { name: 'Roll the dice' }).click();
  const round = view(page).locator('.round');
  await round.waitFor();
  await tilesBigEnough(round, 9, `${name}, 9 tiles`);
  await rollShown(page, round, `${name}, 9 tiles, roll 1`);
  await screenshot(page, `phone-${name}-1-nine-tiles`);

  // The hint: its options in view, the best one focused.
  await round.getByRole('button', { name: 'Hint' }).click();
  const best = round.locator('.hint-option.best');
  await best.waitFor();
  await inView(page, best, `${name}: the hint's best option`);
  await focused(page, best, `${name}: the hint's best option`);
  await screenshot(page, `phone-${name}-2-hint`);
  let analysed = analyzed(page);
  await playChecked(page, `${name}, 9 tiles`);
  await resultShown(page, `${name}, 9 tiles`);
  await analysisReads(page, analysed, `${name}, 9 tiles`);
  await screenshot(page, `phone-${name}-3-nine-tiles-result`);

  // The tiles' states on a roll of 3 + 4: 8 and 9 of no use; with 1 picked, 3, 5 and 7 no
  // longer fit (no set of 7 has 1 and one of them) but still start a new pick; 2, 4 and 6
  // go with the 1 (1 + 6, 1 + 2 + 4).
  await keptRound(page, 'threes-and-fours');
  await round.locator('.tile[data-tile="1"]').click();
  const states = await round.locator('.tile').evaluateAll((tiles) => tiles.map((t) => {
    const style = getComputedStyle(t);
    return {
      tile: Number(t.dataset.tile),
      state: t.classList.contains('selected') ? 'selected' : t.classList.contains('muted') ? 'muted' : t.classList.contains('unfit') ? 'unfit' : 'usable',
      disabled: t.disabled,
      label: t.getAttribute('aria-label'),
      look: [style.opacity, style.borderStyle, style.backgroundImage, style.backgroundColor, style.filter].join(' | '),
    };
  }));
  const of = (state) => states.filter((s) => s.state === state);
  check(JSON.stringify(of('muted').map((s) => s.tile)) === '[8,9]' && of('muted').every((s) => s.disabled), `8 and 9 of no use: ${JSON.stringify(states)}`);
  check(JSON.stringify(of('unfit').map((s) => s.tile)) === '[3,5,7]' && of('unfit').every((s) => !s.disabled), `3, 5 and 7 do not fit the 1: ${JSON.stringify(states)}`);
  check(JSON.stringify(of('usable').map((s) => s.tile)) === '[2,4,6]', `2, 4 and 6 go with the 1: ${JSON.stringify(states)}`);
  const looks = new Set(['usable', 'muted', 'unfit'].map((state) => of(state)[0].look));
  check(looks.size === 3, `three states, three looks: ${JSON.stringify(states.map((s) => [s.state, s.look]))}`);
  const labels = new Set(['usable', 'muted', 'unfit'].map((state) => of(state)[0].label.replace(/\d+/, 'N')));
  check(labels.size === 3, `three states, three names: ${[...labels]}`);
  await screenshot(page, `phone-${name}-4-tile-states`);

  // The two measures side by side, on dice and moves played before (a kept round that
  // resumes at its last roll): roll 1 a blunder that cost 11, roll 2 the best odds that
  // the dice made cost 5, roll 3 a blunder that cost nothing, roll 4 no move.
  analysed = analyzed(page);
  await page.evaluate((kept) => localStorage.setItem('shutbox.solo', JSON.stringify(kept)),
    soloDeal('two-measures', [[2, 4], [5, 7], [3, 6]]));
  await page.reload();
  await resultShown(page, `${name}, the two measures`);
  await analysisReads(page, analysed, `${name}, the two measures`);
  const row = (i, part) => view(page).locator(`.result .moves .move[data-index="${i}"] ${part}`);
  const words = async (i, part) => ((await row(i, part).count()) ? (await row(i, part).textContent()).trim() : null);
  check((await words(0, '.chip')) === 'blunder' && (await words(0, '.move-best')) === 'Best odds: 6', `roll 1: ${await words(0, '')}`);
  check((await words(0, '.move-hindsight')).startsWith('On these dice it cost 11: '), `roll 1's cost: ${await words(0, '')}`);
  check((await words(1, '.chip')) === 'best' && (await words(1, '.move-best')) === null, `roll 2: ${await words(1, '')}`);
  check((await words(1, '.move-hindsight')).startsWith('The best odds at the time, but on these dice it cost 5: '), `roll 2's cost: ${await words(1, '')}`);
  check((await words(2, '.chip')) === 'blunder' && (await words(2, '.move-risky')) === 'Cost nothing on these dice, but a risky choice: 9 had better odds.', `roll 3: ${await words(2, '')}`);
  check((await words(3, '.chip')) === null && (await words(3, '.move-hindsight')) === null && (await words(3, '.move-risky')) === null, `roll 4: ${await words(3, '')}`);
  check((await view(page).locator('.result .summary').textContent()) === 'Knowing the later rolls, 2 choices could have been better (marked below): together they cost 16.', 'the summary');
  check((await view(page).locator('.result .total-cost .stat-value').textContent()) === '16', 'the total cost');
  check((await view(page).locator('.result .measures').textContent()).includes('(best, inaccuracy, mistake, or blunder)'), 'the labels explained where they are shown');
  await screenshot(page, `phone-${name}-5-two-measures`);

  // The longest digits score a 12-tile round can end on: a roll of 2 closes the 2, the
  // next 2 cannot be played: 1, 3, 4, ..., 12 open.
  await keptRound(page, 'twelve-ones');
  await tilesBigEnough(round, 12, `${name}, 12 tiles`);
  check(/^Score now 123456789101112$/.test(await round.locator('.score-now').innerText()), `the digits score as the tiles read: ${await round.locator('.score-now').innerText()}`);
  await round.locator('.tile[data-tile="2"]').click();
  analysed = analyzed(page);
  await round.getByRole('button', { name: 'Close 2' }).click();
  await resultShown(page, `${name}, 12 tiles digits`);
  await analysisReads(page, analysed, `${name}, the longest digits score`);
  const longest = await figuresFit(page, `${name}, the longest digits score`);
  check(longest[0].text === '13456789101112', `the score as the tiles read, no separators: ${longest[0].text}`);
  check(!/[,.\s]/.test(longest.map((f) => f.text).join('')), `no separators in the digits figures: ${longest.map((f) => f.text)}`);
  await screenshot(page, `phone-${name}-6-digits-longest`);

  // A 12-tile digits round on fresh dice, played by taps.
  await page.getByRole('button', { name: 'Change rules' }).click();
  await page.getByRole('combobox', { name: 'Tiles' }).selectOption('12');
  await page.getByRole('combobox', { name: 'Scoring' }).selectOption('digits');
  await page.getByRole('button', { name: 'Roll the dice' }).click();
  await round.waitFor();
  await tilesBigEnough(round, 12, `${name}, 12 tiles`);
  await rollShown(page, round, `${name}, 12 tiles, roll 1`);
  await screenshot(page, `phone-${name}-7-twelve-tiles`);
  analysed = analyzed(page);
  await playChecked(page, `${name}, 12 tiles`);
  await resultShown(page, `${name}, 12 tiles digits`);
  await analysisReads(page, analysed, `${name}, 12 tiles digits`);
  await figuresFit(page, `${name}, 12 tiles digits`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scrolling (${overflow}px too wide)`);
  await screenshot(page, `phone-${name}-8-digits-result`);
  return page;
}

// The rank's note, alone, first, last and tied (position, players, percentile as the API
// gives them: ties share a position; the percentile is the share with a worse score).
async function rankWords(page) {
  const cases = [
    [{ position: 1, players: 1, percentile: 0 }, false, 'The only player so far.'],
    [{ position: 1, players: 1, percentile: 0 }, true, 'Nobody played this date officially.'],
    [{ position: 1, players: 2, percentile: 50 }, false, 'Better than the other player'],
    [{ position: 1, players: 5, percentile: 80 }, false, 'Better than all 4 other players'],
    [{ position: 2, players: 2, percentile: 0 }, false, 'The other player scored better'],
    [{ position: 5, players: 5, percentile: 0 }, false, 'All 4 other players scored better'],
    [{ position: 1, players: 2, percentile: 0 }, false, 'Tied with the other player'],
    [{ position: 1, players: 4, percentile: 0 }, false, 'Tied with all 3 other players'],
    [{ position: 1, players: 10, percentile: 70 }, false, 'Tied for first with 2 other players'],
    [{ position: 1, players: 10, percentile: 80 }, false, 'Tied for first with 1 other player'],
    [{ position: 8, players: 10, percentile: 0 }, false, 'Tied for last with 2 other players'],
    [{ position: 3, players: 10, percentile: 50 }, false, 'Tied with 2 other players; better than 50% of players'],
    [{ position: 3, players: 7, percentile: 57.14 }, false, 'Better than 57.1% of players'],
    [{ position: 2, players: 3000, percentile: 99.97 }, false, 'Better than 99.9% of players'],
  ];
  const said = await page.evaluate(async ([url, all]) => {
    const { rankNote } = await import(url);
    return all.map(([rank, practice]) => rankNote(rank, practice));
  }, [await pageModule(page, 'result.js'), cases]);
  cases.forEach(([rank, practice, words], i) => check(said[i] === words, `${JSON.stringify(rank)}${practice ? ' (practice)' : ''}: "${said[i]}", not "${words}"`));
}

await run(async (browser) => {
  for (const device of PHONES) {
    const page = await phone(browser, device);
    if (device.name === '360') await rankWords(page);
    await page.context().close();
  }
});
