// What the browser scenarios share: the server's URL and the artefacts directory (from
// the environment or the command line), Debian's Chromium through playwright-core, a
// watch on console errors, page errors and outside requests, screenshots, and a player
// that plays a round through the page (tiles clicked or typed, never by calling the API).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));

// node <scenario>.mjs [BASE_URL] [ARTIFACTS_DIR]; or SHUTBOX_BASE_URL, SHUTBOX_TEST_ARTIFACTS.
export const baseUrl = (process.argv[2] || process.env.SHUTBOX_BASE_URL || 'http://127.0.0.1:8000').replace(/\/$/, '');
export const artifacts = path.resolve(process.argv[3] || process.env.SHUTBOX_TEST_ARTIFACTS || path.join(here, 'artifacts'));
const chromiumPath = process.env.SHUTBOX_CHROMIUM || '/usr/bin/chromium';
export const PHONE = { viewport: { width: 375, height: 667 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const PHONE_TALL = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }; // a recent phone
export const DESKTOP = { viewport: { width: 1100, height: 900 } };
// The two phones every view is checked at (a small Android, a recent iPhone) and a laptop.
export const PHONE_360 = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const PHONE_390 = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const LAPTOP = { viewport: { width: 1280, height: 800 } };

mkdirSync(artifacts, { recursive: true });

export async function launch() {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

const problems = [];

// A page of a new browser context (a new player: its own localStorage), watched for
// console errors, uncaught exceptions, server errors and requests to any other host.
export async function newPage(browser, label, options = {}) {
  const context = await browser.newContext({ baseURL: baseUrl, timezoneId: 'UTC', locale: 'en-GB', reducedMotion: 'reduce', ...DESKTOP, ...options });
  const page = await context.newPage();
  const origin = new URL(baseUrl).origin;
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium reports every 4xx answer as "Failed to load resource". The API's
    // problems (a mistyped code, say) are part of the game and shown on the page;
    // any other failure (a file of the page itself, a 5xx) is a real error.
    const where = message.location()?.url ?? '';
    const apiProblem = /Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())
      && new URL(where, origin).pathname.startsWith('/v1/');
    if (!apiProblem) problems.push(`[${label}] console error: ${message.text()} (${where})`);
  });
  page.on('pageerror', (error) => problems.push(`[${label}] page error: ${error.message}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== origin) problems.push(`[${label}] request to another host: ${request.url()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 500) problems.push(`[${label}] ${response.status()} from ${response.url()}`);
  });
  return page;
}

// Fails the scenario if any page had console errors, page errors or outside requests.
export function checkProblems() {
  if (problems.length) throw new Error(`the page had problems:\n${problems.join('\n')}`);
}

export async function screenshot(page, name) {
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
  return file;
}

// The visible view (the current tab's section).
export function view(page) {
  return page.locator('main > section.view:not([hidden])');
}

// Names the player on the account tab, and waits until the page says it is saved.
export async function setName(page, name) {
  await page.goto('/play#account');
  const input = page.getByLabel('Name', { exact: true });
  await input.waitFor();
  await input.fill(name);
  await page.getByRole('button', { name: 'Save name' }).click();
  await view(page).getByText('Saved.').waitFor();
}

const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// A code mistyped: its first character the one `by` places on in the codes' alphabet (so
// that its check character no longer matches).
export function mistyped(code, by) {
  return CODE_ALPHABET[(CODE_ALPHABET.indexOf(code[0]) + by) % CODE_ALPHABET.length] + code.slice(1);
}

async function tileNumbers(locator) {
  return locator.evaluateAll((buttons) => buttons.map((b) => Number(b.dataset.tile)));
}

/**
 * Play the round in the visible view to its end: each roll, any legal move (tiles the
 * page marks usable, added while they fit, then Close). With keyboard: true, tiles are
 * typed as digits and closed with Enter. onMove(page, round, rollIndex) runs first
 * on each roll and may play the move itself (returning true). Returns the rolls played.
 */
export async function playRound(page, { keyboard = false, onChoose = null, onMove = null, maxRolls = 13 } = {}) {
  const round = view(page).locator('.round');
  let rolls = 0;
  for (;;) {
    await round.waitFor();
    const phase = await round.getAttribute('data-phase');
    if (phase === 'over') return rolls;
    check(rolls <= maxRolls, `more than ${maxRolls} rolls`);
    if (phase === 'choose') {
      if (!(onChoose && (await onChoose(page, round)))) {
        if (keyboard) await page.keyboard.press('2');
        else await round.getByRole('button', { name: 'Roll two dice' }).click();
      }
      await page.waitForFunction((el) => el.dataset.phase !== 'choose', await round.elementHandle());
      continue;
    }
    check(phase === 'move', `unexpected phase ${phase}`);
    const before = rolls;
    rolls += 1;
    if (!(onMove && (await onMove(page, round, before)))) {
      const close = round.locator('.actions button.primary');
      // Greedy: a usable tile that still fits the selection keeps it inside a legal set.
      while (await close.isDisabled()) {
        const fits = round.locator('.tile:not([disabled]):not(.selected):not(.unfit)');
        const [tile] = await tileNumbers(fits);
        check(tile, 'no usable tile while the selection is incomplete');
        if (keyboard && tile <= 10) await page.keyboard.press(tile === 10 ? '0' : String(tile));
        else await round.locator(`.tile[data-tile="${tile}"]`).click();
      }
      if (keyboard) await page.keyboard.press('Enter');
      else await close.click();
    }
    // The next roll (a new roll number or phase) or the end.
    await page.waitForFunction(
      ([el, count]) => el.dataset.phase === 'over' || el.querySelectorAll('.history li').length >= count,
      [await round.elementHandle(), rolls],
    );
  }
}

// Solo's rules, folded under "Roll the dice": opened (by their summary) unless open.
export async function openSoloRules(page) {
  const variants = view(page).locator('.solo-setup details');
  if (!(await variants.evaluate((details) => details.open))) await variants.locator('summary').click();
}

// The text of the first element matching a selector in the visible view.
export async function text(page, selector) {
  return (await view(page).locator(selector).first().innerText()).trim();
}

// The URL of one of the page's modules as the page itself loaded it: under the digest
// that index.html names (/play/<digest>/result.js). An import() of it in page.evaluate
// gets the page's own module, with its state (the language chosen, say); an import of
// /play/result.js would be another module, fresh.
export async function pageModule(page, name) {
  return page.evaluate((file) => new URL(file, document.querySelector('script[type="module"]').src).href, name);
}

export async function run(scenario) {
  const browser = await launch();
  const started = Date.now();
  try {
    await scenario(browser);
    checkProblems();
    console.log(`ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await browser.close();
  }
}

// axe-core (the npm package of this folder), run in the page as it stands: every rule of
// its default set (WCAG A and AA, and its best practices). Evaluated through the DevTools
// protocol, so the page's Content-Security-Policy (scripts from its own origin only) lets it.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function axe(page, what) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} ${n.failureSummary?.split('\n')[1]?.trim() ?? ''}`).join(' | ')}`);
  });
  check(violations.length === 0, `${what}: axe found ${violations.length} violation(s):\n  ${violations.join('\n  ')}`);
  console.log(`axe: ${what}: no violation`);
}

// WCAG's contrast ratio of two colours ('rgb(r, g, b)' or 'rgba(r, g, b, a)', opaque).
export function contrast(a, b) {
  const luminance = (color) => {
    const [r, g, bl] = color.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const c = v / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// Whether an element's box lies inside the window (its own, not the page's).
export async function insideViewport(page, locator) {
  const box = await locator.boundingBox();
  const { width, height } = page.viewportSize();
  return Boolean(box) && box.x >= 0 && box.y >= 0 && box.x + box.width <= width + 0.5 && box.y + box.height <= height + 0.5;
}
