// Solo rounds on variants, on a phone: 12 tiles with one die once 7 and up are shut,
// where the Hint button ranks the moves and the hinted best move is taken; then 6 tiles
// (one die allowed at every roll), where the hint's choice of one die or two is taken;
// then the newer fields all at once, where the page offers on every roll exactly the
// tiles of POST /v1/moves. The analysis of each round comes from POST /v1/analyze,
// which replays the moves the page recorded (one-die moves included) as the server's
// rules do.
import { check, newPage, openSoloRules, PHONE, playRound, run, screenshot, text, view } from './lib.mjs';

// What a round shows: the rolls played (the history) and the tiles closed.
async function roundState(round) {
  return {
    played: await round.locator('.history li').count(),
    roll: await round.locator('.roll-text').innerText(), // 'a + b = total' in any language
    closed: await round.locator('.tile.closed').evaluateAll((bs) => bs.map((b) => b.dataset.tile)),
  };
}

// One legal move, as playRound makes them: usable tiles that fit, then Close.
async function playOneMove(page, round) {
  await page.waitForFunction((el) => el.dataset.phase === 'move', await round.elementHandle());
  const close = round.locator('.actions button.primary');
  while (await close.isDisabled()) {
    await round.locator('.tile:not([disabled]):not(.selected):not(.unfit)').first().click();
  }
  await close.click();
  await page.waitForFunction((el) => el.querySelectorAll('.history li').length >= 1, await round.elementHandle());
}

// One move of a new round that leaves the round going: the roll after a move may be
// unplayable (the round is then over), so another round is played until one goes on.
async function oneMoveOfARoundGoingOn(page, round) {
  for (let attempt = 1; attempt <= 10; attempt += 1) {
    await playOneMove(page, round);
    if ((await round.getAttribute('data-phase')) !== 'over') return;
    await view(page).locator('.result').waitFor({ timeout: 30000 });
    await page.getByRole('button', { name: 'Play again' }).click();
    await round.waitFor();
  }
  throw new Error('ten rounds in a row were over after their first move');
}

async function takeHint(page, round) {
  const answered = page.waitForResponse((r) => r.url().endsWith('/v1/hint') && r.request().method() === 'POST');
  await round.getByRole('button', { name: 'Hint' }).click();
  const hint = await (await answered).json();
  const best = round.locator('.hint-option.best');
  await best.waitFor();
  return { hint, best };
}

await run(async (browser) => {
  const page = await newPage(browser, 'solo', PHONE);
  await page.goto('/play#solo');
  // "Roll the dice" up front, in view; the standard rules said in a line; the variants
  // folded (no drop-down shown) until asked for.
  const rollButton = page.getByRole('button', { name: 'Roll the dice' });
  await rollButton.waitFor();
  const box = await rollButton.boundingBox();
  check(box && box.y + box.height <= PHONE.viewport.height, `Roll the dice in view (${JSON.stringify(box)})`);
  check((await view(page).locator('select:visible').count()) === 0, 'no drop-down before the rules are opened');
  check((await text(page, '.solo-setup summary')).includes('9 tiles'), `the rules in a line: ${await text(page, '.solo-setup summary')}`);
  await screenshot(page, 'solo-0-setup-phone');
  await openSoloRules(page);
  await page.getByRole('combobox', { name: 'Tiles' }).selectOption('12');
  // The two one-die fields named apart (PRODUCT.md: one_die, one_die_choice).
  await page.getByRole('combobox', { name: 'Rolling one die allowed' }).selectOption('high_closed');
  check((await page.getByRole('combobox', { name: 'Once it is allowed, one die' }).count()) === 1, 'the choice field named apart');
  check((await view(page).getByRole('combobox', { name: /^(One die|Single die)$/ }).count()) === 0, 'neither “One die” nor “Single die”');
  check((await text(page, '.solo-setup summary')).includes('12 tiles'), 'the line follows the rules chosen');
  check((await text(page, '.rules-form')).includes('once every tile of 7 or more is closed'), 'the variant described');
  await page.getByRole('button', { name: 'Roll the dice' }).click();
  const round = view(page).locator('.round');
  await round.waitFor();
  check((await round.locator('.tile').count()) === 12, 'twelve tiles');
  check((await text(page, '.rules-line')).startsWith('12 tiles'), 'the rules shown');

  // The first roll: the hint, its best option taken.
  const { hint, best } = await takeHint(page, round);
  check(hint.options.length >= 1 && hint.best, 'the hint ranks options');
  const ranked = hint.options.map((o) => [o.p_shut, -o.expected_score]);
  check(ranked.every((r, i) => i === 0 || r[0] < ranked[i - 1][0] || (r[0] === ranked[i - 1][0] && r[1] <= ranked[i - 1][1])), 'ranked by shut chance, then expected score');
  check((await round.locator('.hint-option').count()) === hint.options.length, 'every option listed');
  const bestText = await best.locator('.hint-tiles').innerText();
  check(bestText === [...hint.best].sort((a, b) => b - a).join('+'), `best option ${bestText} highlighted`);
  await screenshot(page, 'solo-1-hint-phone');
  await best.click();
  const selected = await round.locator('.tile.selected').evaluateAll((bs) => bs.map((b) => Number(b.dataset.tile)));
  check(JSON.stringify(selected) === JSON.stringify([...hint.best].sort((a, b) => a - b)), `the hinted tiles selected: ${selected}`);
  await round.getByRole('button', { name: `Close ${bestText}` }).click();
  await page.waitForFunction((el) => el.querySelectorAll('.history li').length >= 1, await round.elementHandle());

  // The rest: any legal move.
  await playRound(page);
  await screenshot(page, 'solo-2-round-over-phone');
  await view(page).locator('.result').waitFor({ timeout: 30000 });
  check((await view(page).locator('.stat.rank').count()) === 0, 'no rank in Solo');
  check((await view(page).locator('.moves .move').count()) >= 1, 'the analysis per move');
  for (const level of ['easy', 'medium', 'hard']) {
    check(/^\d+$/.test(await text(page, `.computer-player[data-player="${level}"] .computer-score`)), `${level}'s score`);
  }
  await screenshot(page, 'solo-3-result-phone');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scrolling on a phone (${overflow}px too wide)`);

  // Another round on the same rules, kept through a change of language: one move, the
  // page built again in German, the same round (its dice and moves) goes on.
  await page.getByRole('button', { name: 'Play again' }).click();
  await round.waitFor();
  check((await round.locator('.tile').count()) === 12, 'the same rules again');
  await oneMoveOfARoundGoingOn(page, round);
  const before = await roundState(round);
  check(before.played === 1, `one move played (${before.played})`);
  await page.locator('#language').selectOption('de');
  await page.waitForFunction(() => document.documentElement.lang === 'de');
  await round.waitFor();
  const german = await roundState(round);
  check(JSON.stringify(german) === JSON.stringify(before), `the round goes on in German: ${JSON.stringify(german)}, was ${JSON.stringify(before)}`);
  await page.locator('#language').selectOption('en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await round.waitFor();
  check(JSON.stringify(await roundState(round)) === JSON.stringify(before), 'and in English again');
  await playRound(page);
  await view(page).locator('.result').waitFor({ timeout: 30000 });

  // 6 tiles: one die or two at every roll, as the hint says.
  await page.getByRole('button', { name: 'Change rules' }).click();
  await page.getByRole('combobox', { name: 'Tiles' }).selectOption('6');
  await page.getByRole('button', { name: 'Roll the dice' }).click();
  await round.waitFor();
  let choices = 0;
  await playRound(page, {
    onChoose: async (p, r) => {
      const { hint: choice, best: option } = await takeHint(p, r);
      check(choice.dice_choice && [1, 2].includes(choice.dice_choice.best), 'a choice of dice');
      const label = choice.dice_choice.best === 1 ? 'Roll one die' : 'Roll two dice';
      check((await option.locator('.hint-tiles').innerText()) === label, `the hint's best: ${label}`);
      choices += 1;
      if (choices === 1) await screenshot(p, 'solo-4-dice-choice-phone');
      await option.click();
      return true;
    },
  });
  check(choices >= 1, 'the dice were chosen');
  await view(page).locator('.result').waitFor({ timeout: 30000 });
  await screenshot(page, 'solo-5-one-die-result-phone');

  // The page built again in another language after a round: its rules are still chosen.
  await page.locator('#language').selectOption('de');
  await page.waitForFunction(() => document.documentElement.lang === 'de');
  check((await view(page).locator('.rules-form select[name="tiles"]').inputValue()) === '6', 'the rules kept in German');

  // The newer fields: every roll offers the tiles of the server's legal sets, and the
  // server's replay takes every round the page records.
  await page.locator('#language').selectOption('en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await openSoloRules(page);
  const chosen = {
    Tiles: '9',
    Moves: 'die_or_sum_both',
    'A roll counts as': 'sum_or_difference',
    'Rolling one die allowed': 'sum_le_6',
    'Once it is allowed, one die': 'mandatory',
    'First move must close': '2',
    'Turn ends on a total of': '11',
  };
  for (const [name, value] of Object.entries(chosen)) await page.getByRole('combobox', { name, exact: true }).selectOption(value);
  const rules = { tiles: 9, one_die: 'sum_le_6', move_rule: 'die_or_sum_both', scoring: 'sum', total: 'sum_or_difference', one_die_choice: 'mandatory', first_must_close: 2, stop_on_total: 11 };
  await page.getByRole('button', { name: 'Roll the dice' }).click();
  await round.waitFor();
  const line = await text(page, '.rules-line');
  for (const words of ['a roll counts as its total or its difference', 'only one die once the open tiles add up to 6 or less', 'the first move must close tile 2', 'a roll of 11 ends the turn']) check(line.includes(words), `the rules shown: ${words} (${line})`);
  let offered = 0;
  const sameAsServer = async (p, r) => {
    const tiles = (selector) => r.locator(selector).evaluateAll((bs) => bs.map((b) => Number(b.dataset.tile)));
    const [d1, d2] = (await r.locator('.roll-text').innerText()).match(/\d+/g).map(Number);
    const oneDie = (await r.locator('.dice .die').count()) === 1;
    const body = { rules, open: await tiles('.tile:not(.closed)'), roll: [d1, oneDie ? 1 : d2], dice: oneDie ? 1 : 2 };
    const answer = await p.evaluate(async (sent) => {
      const response = await fetch('/v1/moves', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(sent) });
      return response.json();
    }, body);
    const usable = await tiles('.tile:not([disabled])');
    check(JSON.stringify(usable) === JSON.stringify(answer.tiles), `the tiles of ${JSON.stringify(body)}: ${usable}, the server's ${JSON.stringify(answer)}`);
    offered += 1;
    return false; // then played as any round
  };
  for (let played = 0; offered < 4; played += 1) {
    check(played < 12, `twelve rounds with ${offered} moves in all`);
    if (played) {
      await page.getByRole('button', { name: 'Play again' }).click();
      await round.waitFor();
    }
    await playRound(page, { onMove: sameAsServer });
    await view(page).locator('.result').waitFor({ timeout: 30000 });
  }
  await screenshot(page, 'solo-6-variants-result-phone');
});
