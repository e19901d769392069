// @ts-check
// Friend Box: make a box and share its code, or open one by code; play it blind or
// against the owner's final position; the result versus the owner and everyone's results.
// The box being played is in the address (#box=CODE, the link that is shared), so that a
// reload resumes it and Back leaves it; the player's own result and analysis come back
// from the API on a later visit, on any device.
import { askName } from './account.js';
import { api, ApiError, uuid } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { keptRound } from './game.js';
import { ensurePlayer, loadJSON, saveJSON, storedPlayer } from './player.js';
import { copyButton, renderResult } from './result.js';
import { _, formatNumber, formatScore, formatTime, ngettext } from './strings.js';
import { codeField, errorNote, loading, rulesForm, rulesSummary, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Move} Move */
/** @typedef {'blind' | 'target'} Mode */
/**
 * What this browser keeps of a box, per player: the mode it was opened in, and whether
 * the player has played it (their run itself is the API's: GET /v1/boxes/{code}/runs/me).
 * @typedef {{mode?: Mode, played?: boolean}} Kept
 */

// A page of a box's results: the most GET /v1/boxes/{code}/results gives at once.
const RESULTS_PAGE = 100;

/** @param {number} count */
function playersSoFar(count) {
  return ngettext('{count} player so far', '{count} players so far', count);
}

// The owner's target, in words: with the hints taken, where the box was made of a Solo
// round played with hints (PRODUCT.md §6b: never shown as if earned unaided).
/** @param {Schemas['Target']} target */
function targetLine(target) {
  const shut = target.score === 0 && !target.open.length;
  const hints = target.hints_used ?? 0;
  const values = { score: formatNumber(target.score), tiles: target.open.join(' '), count: hints };
  if (!hints) return shut ? _('Target: the owner shut the box (score 0).') : _('Target: score {score}, open {tiles}.', values);
  return shut
    ? ngettext('Target: the owner shut the box (score 0), taking {count} hint.', 'Target: the owner shut the box (score 0), taking {count} hints.', hints, values)
    : ngettext('Target: score {score}, open {tiles}, taking {count} hint.', 'Target: score {score}, open {tiles}, taking {count} hints.', hints, values);
}

/** @param {string} code */
function boxLink(code) {
  return `${location.origin}/play#box=${encodeURIComponent(code)}`;
}

// A code as the API reads it: case, spaces and hyphens don't matter.
/** @param {string} code */
function normalCode(code) {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

// The box the address names (#box=CODE), as the router reads it; null: none.
function addressedCode() {
  const match = decodeURIComponent(location.hash.replace(/^#/, '')).match(/^box=(.+)$/);
  return match ? normalCode(match[1]) : null;
}

/** @param {string} code */
function keptKey(code) {
  return `boxes.${storedPlayer()?.id}.${code}`;
}

/**
 * @param {string} code
 * @returns {Kept}
 */
function kept(code) {
  const value = loadJSON(keptKey(code));
  return value && typeof value === 'object' ? value : {};
}

/**
 * @param {string} code
 * @param {Kept} change
 */
function keep(code, change) {
  saveJSON(keptKey(code), { ...kept(code), ...change });
}

// The share sheet where the browser has one (the Web Share API): a line with the link in
// it. Copying the link is always there too (and the way where there is no share sheet).
/**
 * @param {string} displayCode
 * @param {string} link
 * @param {boolean} [withCode] a button copying the code too
 */
function shareActions(displayCode, link, withCode = false) {
  const share = typeof navigator.share === 'function'
    ? h('button', {
      type: 'button',
      class: 'primary share-button',
      onclick: async () => {
        try {
          await navigator.share({
            title: _('Box {code}', { code: displayCode }),
            text: _('Play Friend Box {code} on the same dice as me: {link}', { code: displayCode, link }),
          });
        } catch {
          // Closed without sharing, or not allowed here: the link can still be copied.
        }
      },
    }, _('Share'))
    : null;
  return h('div', { class: 'actions box-share' }, share,
    withCode ? copyButton(() => displayCode, _('Copy code')) : null,
    copyButton(() => link, _('Copy link')));
}

/**
 * A box just made, shown in `into` (the Friend Box view's, or a Solo round's): its code,
 * which the focused heading's description reads out, a line, its link, the share sheet and
 * the copy buttons, then `actions`. The focus on its heading, the card in view.
 * @param {HTMLElement} into
 * @param {Schemas['CreatedBox']} box
 * @param {string} line what the box is for, whom to share it with
 * @param {...HTMLElement} actions
 */
export function showBoxCard(into, box, line, ...actions) {
  const link = boxLink(box.display_code);
  const codeId = uniqueId('new-box');
  const heading = h('h3', { tabindex: '-1', 'aria-describedby': codeId }, _('Your box is ready'));
  clear(into,
    heading,
    h('p', { class: 'box-code', id: codeId, 'data-code': box.display_code }, box.display_code),
    h('p', { class: 'muted-text' }, line),
    h('p', { class: 'box-link' }, h('a', { href: link }, link)),
    shareActions(box.display_code, link, true),
    actions.length ? h('div', { class: 'actions' }, actions) : null);
  heading.focus({ preventScroll: true });
  into.scrollIntoView({ block: 'nearest' });
}

/** @returns {import('./ui.js').View} */
export function boxView() {
  // Open a box by code.
  const { field: codeEntry, input: codeInput, button: openButton, error: openError } = codeField({
    id: uniqueId('box-code'), label: _('Box code'), button: _('Open box'), help: _('Like ABCD-EFGH1. Case, spaces and dashes don’t matter.'),
  });
  const modeName = uniqueId('mode');
  /**
   * @param {Mode} value
   * @param {string} label
   * @param {string} help
   * @param {boolean} checked
   */
  const modeRadio = (value, label, help, checked) => h('label', { class: 'radio' },
    h('input', { type: 'radio', name: modeName, value, checked }),
    h('span', {}, h('strong', {}, label), ' — ', help));
  // How to play it first, then the code and "Open box": the choice made before the button.
  const openForm = h('form', { class: 'panel open-box', novalidate: true },
    h('h2', {}, _('Open a box')),
    h('fieldset', { class: 'modes' },
      h('legend', {}, _('How to play')),
      modeRadio('blind', _('Blind'), _('the owner’s result stays hidden until you have played'), true),
      modeRadio('target', _('With target'), _('see the owner’s final position and try to beat it'), false)),
    codeEntry);

  // Make a box.
  const form = rulesForm();
  const created = h('div', { class: 'created', 'aria-live': 'polite' });
  const createButton = h('button', { type: 'submit', class: 'primary' }, _('Make a box'));
  const createForm = h('form', { class: 'panel create-box' },
    h('h2', {}, _('Make a box')),
    h('p', { class: 'muted-text' }, _('Fresh dice behind a code to share. Standard rules unless you choose others.')),
    h('details', { class: 'rules-details' }, h('summary', {}, _('Rules'), h('span', { class: 'summary-note' }, _('standard unless you change them'))), form.el),
    createButton, created);

  // The box being played.
  const active = h('div', { class: 'active-box' });
  const forms = h('div', { class: 'box-forms' }, openForm, createForm);
  const el = h('section', { class: 'view view-box' }, viewHeader(_('Friend Box'), _('Play the same dice as your friends: make a box and share its code, or open a friend’s.')), active, forms);

  /** @type {import('./game.js').Round | null} */
  let round = null;
  /** @type {string | null} the box shown (or being opened), its code as the API writes it */
  let current = null;

  // The box named in the address from now on (Back leaves it); the router told of it.
  /** @param {Schemas['BoxOut']} box */
  function address(box) {
    if (addressedCode() === box.code) return;
    history.pushState(null, '', `#box=${encodeURIComponent(box.display_code)}`);
    window.dispatchEvent(new CustomEvent('shutbox:address'));
  }

  // Back to the forms: the box left (its progress stays kept).
  function close() {
    round?.destroy();
    round = null;
    current = null;
    clear(active);
    forms.hidden = false;
  }

  /**
   * @param {Schemas['BoxOut']} box
   * @param {HTMLElement} into
   * @param {(count: number) => void} onCount
   */
  async function results(box, into, onCount) {
    const path = `/v1/boxes/${encodeURIComponent(box.code)}`;
    const scoring = box.rules.scoring;
    /** @param {number} offset @returns {Promise<Schemas['BoxResult'][]>} */
    const page = (offset) => api('GET', `${path}/results?limit=${RESULTS_PAGE}&offset=${offset}`, { auth: true });
    // Best first, each with its place as the API gives it (ties share it: 1, 1, 3).
    // A player who gave no name is "You" to themselves and numbered by their row to the
    // others, never "Anonymous".
    let rowsShown = 0;
    /** @param {Schemas['BoxResult']} r */
    const row = (r) => h('li', { class: r.me ? 'is-you' : null, 'data-rank': r.place, 'data-row': ++rowsShown },
      h('span', { class: 'results-rank' }, formatNumber(r.place)),
      h('span', { class: 'results-who' },
        h('span', { class: 'results-name' }, r.name ?? (r.me ? _('You') : _('Player {number}', { number: formatNumber(rowsShown) }))),
        r.me ? h('span', { class: 'chip chip-you' }, _('you')) : null,
        r.owner ? h('span', { class: 'chip chip-owner' }, _('owner')) : null,
        r.owner && box.target?.hints_used ? h('span', { class: 'chip chip-hints' }, ngettext('{count} hint', '{count} hints', box.target.hints_used)) : null),
      h('span', { class: 'results-score' }, formatScore(r.score, scoring), r.shut ? h('span', { class: 'chip chip-best' }, _('shut')) : null),
      h('span', { class: 'chip' }, r.mode === 'target' ? _('target') : _('blind')),
      h('time', { class: 'results-time', datetime: r.submitted_at }, formatTime(r.submitted_at)));
    clear(into, loading());
    try {
      const list = await page(0);
      // A full page may have more after it: then the box itself says how many have played.
      onCount(list.length < RESULTS_PAGE ? list.length : /** @type {Schemas['BoxOut']} */ (await api('GET', path)).players);
      const ol = h('ol', { class: 'results' }, list.map(row));
      const more = h('button', { type: 'button', class: 'secondary', hidden: list.length < RESULTS_PAGE }, _('More results'));
      const moreNote = h('div', { 'aria-live': 'polite' });
      let read = list.length;
      more.addEventListener('click', async () => {
        more.disabled = true;
        clear(moreNote);
        try {
          const next = (await page(read)).map(row);
          read += next.length;
          ol.append(...next);
          more.hidden = next.length < RESULTS_PAGE;
          if (next.length) {
            next[0].tabIndex = -1;
            next[0].focus();
          }
        } catch (error) {
          clear(moreNote, errorNote(error));
        } finally {
          more.disabled = false;
        }
      });
      clear(into, h('h3', {}, _('Results')),
        list.length ? [ol, more, moreNote] : h('p', { class: 'muted-text' }, _('No results yet.')),
        shareActions(box.display_code, boxLink(box.display_code)));
    } catch (error) {
      clear(into, errorNote(error));
    }
  }

  /**
   * @param {Schemas['BoxOut']} box
   * @param {Mode} mode
   * @param {{autostart?: boolean}} [options]
   */
  function activate(box, mode, { autostart = false } = {}) {
    round?.destroy();
    round = null;
    const code = box.code;
    current = code;
    address(box);
    keep(code, { mode });
    const target = box.target ?? null;
    const runMode = target ? 'target' : mode; // a player shown the target plays a target run
    const progressKey = `progress.box.${storedPlayer()?.id}.${code}`;
    const resultsBox = h('section', { class: 'panel results-panel', 'aria-live': 'polite' });
    const stage = h('div', { class: 'stage' });
    const players = h('span', { class: 'box-players' }, box.players !== undefined ? playersSoFar(box.players) : '');
    const title = h('h2', { tabindex: '-1' }, _('Box {code}', { code: box.display_code }));
    const info = h('div', { class: 'panel box-info' },
      title,
      h('p', { class: 'box-meta' },
        h('span', {}, _('Made by {name}', { name: box.owner?.name ?? _('Anonymous') })),
        players,
        h('span', {}, rulesSummary(box.rules))),
      mode === 'target'
        ? h('p', { class: target ? 'target' : 'muted-text' }, target ? targetLine(target) : _('The owner has not played yet: no target to show.'))
        : null);
    clear(active, info, stage);
    title.focus();

    /**
     * @param {Schemas['BoxRunResult'] | null} result the run just sent; null: one sent before
     * @param {string} [note]
     */
    const finished = async (result, note) => {
      round?.destroy();
      round = null;
      saveJSON(progressKey, null);
      keep(code, { played: true });
      forms.hidden = false;
      const noted = note ? h('p', { class: 'note' }, note) : null;
      stage.after(resultsBox);
      results(box, resultsBox, (count) => {
        players.textContent = playersSoFar(count);
      });
      let shown = result;
      if (!shown) {
        // Played before (here or on another device): the API has the run as it was answered.
        clear(stage, noted, loading());
        try {
          shown = /** @type {Schemas['BoxRunResult']} */ (await api('GET', `/v1/boxes/${encodeURIComponent(code)}/runs/me`, { auth: true }));
        } catch (error) {
          if (current === code) clear(stage, noted, errorNote(error, () => finished(null, note)));
          return;
        }
        if (current !== code) return;
      }
      const view = renderResult(shown, { title: _('Your result') });
      clear(stage, noted, view);
      view.focusHeading();
    };

    /**
     * @param {Move[]} moves
     * @param {string} key the run's Idempotency-Key
     */
    const submit = async (moves, key) => {
      clear(stage, loading(_('Checking your run…')));
      try {
        /** @type {Schemas['BoxRunResult']} */
        const result = await api('POST', `/v1/boxes/${encodeURIComponent(code)}/runs`, {
          body: /** @satisfies {Schemas['BoxRunSubmission']} */ ({ moves, mode: runMode }), auth: true, idempotencyKey: key,
        });
        if (current === code) finished(result);
        else keep(code, { played: true }); // left meanwhile: shown on a later visit
      } catch (error) {
        if (current !== code) return;
        if (error instanceof ApiError && error.is('already-played')) {
          finished(null, error.detail);
          return;
        }
        clear(stage, errorNote(error, () => submit(moves, key)));
      }
    };

    if (kept(code).played) {
      finished(null, _('You have played this box already.'));
      return;
    }
    keptRound({
      storageKey: progressKey,
      rules: box.rules,
      dice: box.dice,
      label: _('Box {code}', { code: box.display_code }),
      stage,
      startLabel: _('Play this box'),
      submit,
      autostart,
      onStart: (started) => {
        round = started;
        forms.hidden = true; // one thing at a time while the round is on
      },
    });
  }

  /**
   * @param {string} code
   * @param {Mode} mode
   */
  async function open(code, mode) {
    clear(openError);
    codeInput.removeAttribute('aria-invalid');
    if (!code.trim()) {
      codeInput.focus();
      return;
    }
    const asked = normalCode(code);
    current = asked;
    openButton.disabled = true;
    try {
      await ensurePlayer();
      /** @type {Schemas['BoxOut']} */
      const box = await api('GET', `/v1/boxes/${encodeURIComponent(code.trim())}?mode=${mode}`, { auth: true });
      if (current !== asked) return; // another box asked for meanwhile, or left
      await askName(); // once the box is found: a mistyped code is told at once
      if (current !== asked) return;
      activate(box, mode);
    } catch (error) {
      if (current !== asked) return;
      current = null;
      codeInput.setAttribute('aria-invalid', 'true');
      clear(openError, errorNote(error));
      codeInput.focus();
    } finally {
      openButton.disabled = false;
    }
  }

  openForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const checked = /** @type {HTMLInputElement | null} */ (openForm.querySelector(`input[name="${modeName}"]:checked`));
    const mode = checked?.value === 'target' ? 'target' : 'blind';
    open(codeInput.value, mode);
  });

  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    createButton.disabled = true;
    clear(created);
    try {
      await ensurePlayer();
      await askName();
      clear(created, loading());
      /** @type {Schemas['CreatedBox']} */
      const box = await api('POST', '/v1/boxes', { body: /** @satisfies {Schemas['NewBox']} */ ({ rules: form.value() }), auth: true, idempotencyKey: uuid() });
      // The focus on the card: the button it came from was disabled meanwhile. That
      // button gives way to the card (one box made at a time); "Make another box" brings it back.
      createButton.hidden = true;
      showBoxCard(created, box, _('Share this code or link with your friends, then play it yourself.'),
        h('button', { type: 'button', class: 'primary', onclick: () => activate({ ...box, players: 0 }, 'blind', { autostart: true }) }, _('Play it now')),
        h('button', {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            clear(created);
            createButton.hidden = false;
            createButton.focus();
          },
        }, _('Make another box')));
    } catch (error) {
      clear(created, errorNote(error));
      createButton.disabled = false;
      createButton.focus();
    } finally {
      createButton.disabled = false;
    }
  });

  return {
    el,
    // #box=CODE: that box (kept as it is when it is the one shown); #box: the forms.
    show(params = {}) {
      if (!params.code) {
        if (current) close();
        return;
      }
      if (current === normalCode(params.code)) return;
      const mode = kept(normalCode(params.code)).mode ?? 'blind';
      codeInput.value = params.code;
      const radio = /** @type {HTMLInputElement} */ (openForm.querySelector(`input[name="${modeName}"][value="${mode}"]`));
      radio.checked = true;
      open(params.code, mode);
    },
    destroy() {
      round?.destroy();
      el.remove();
    },
  };
}
