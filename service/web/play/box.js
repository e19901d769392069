// @ts-check
// Friend Box: make a box and share its code, or open one by code; play it blind or
// against the owner's final position; the result versus the owner and everyone's results.
import { api, ApiError, uuid } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { keptRound } from './game.js';
import { ensurePlayer, loadJSON, saveJSON, storedPlayer } from './player.js';
import { copyButton, renderResult } from './result.js';
import { _, formatNumber, formatTime, ngettext } from './strings.js';
import { errorNote, loading, rulesForm, rulesSummary, viewHeader } from './ui.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./rules.js').Move} Move */
/** @typedef {'blind' | 'target'} Mode */

/** @param {number} count */
function playersSoFar(count) {
  return ngettext('{count} player so far', '{count} players so far', count);
}

/** @param {string} code */
function boxLink(code) {
  return `${location.origin}/play#box=${encodeURIComponent(code)}`;
}

/** @returns {import('./ui.js').View} */
export function boxView() {
  // Open a box by code.
  const codeId = uniqueId('box-code');
  const codeInput = h('input', {
    id: codeId, name: 'code', type: 'text', inputmode: 'text', autocomplete: 'off', autocapitalize: 'characters',
    spellcheck: 'false', maxlength: '40', required: true, 'aria-describedby': `${codeId}-help`, class: 'code-input',
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
  const openError = h('div', { class: 'form-error', 'aria-live': 'polite' });
  const openButton = h('button', { type: 'submit', class: 'primary' }, _('Open box'));
  const openForm = h('form', { class: 'panel open-box', novalidate: true },
    h('h2', {}, _('Open a box')),
    h('div', { class: 'field' },
      h('label', { for: codeId }, _('Box code')),
      h('div', { class: 'inline' }, codeInput, openButton),
      openError,
      h('p', { class: 'field-help', id: `${codeId}-help` }, _('Like ABCD-EFGH1. Case, spaces and dashes don’t matter.'))),
    h('fieldset', { class: 'modes' },
      h('legend', {}, _('How to play')),
      modeRadio('blind', _('Blind'), _('the owner’s result stays hidden until you have played'), true),
      modeRadio('target', _('With target'), _('see the owner’s final position and try to beat it'), false)));

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

  /**
   * @param {string} code
   * @param {HTMLElement} into
   * @param {(count: number) => void} [onCount]
   */
  async function results(code, into, onCount = () => {}) {
    clear(into, loading());
    try {
      /** @type {Schemas['BoxResult'][]} */
      const list = await api('GET', `/v1/boxes/${encodeURIComponent(code)}/results`, { auth: true });
      onCount(list.length);
      clear(into, h('h3', {}, _('Results')), list.length
        ? h('ol', { class: 'results' }, list.map((r, i) => h('li', {},
          h('span', { class: 'results-rank' }, formatNumber(i + 1)),
          h('span', { class: 'results-name' }, r.name ?? _('Anonymous')),
          h('span', { class: 'results-score' }, formatNumber(r.score), r.shut ? h('span', { class: 'chip chip-best' }, _('shut')) : null),
          h('span', { class: 'chip' }, r.mode === 'target' ? _('target') : _('blind')),
          h('time', { class: 'results-time', datetime: r.submitted_at }, formatTime(r.submitted_at)))))
        : h('p', { class: 'muted-text' }, _('No results yet.')));
    } catch (error) {
      clear(into, errorNote(error));
    }
  }

  /** @param {string} code */
  function playedKey(code) {
    return `boxes.${storedPlayer()?.id}.${code}`;
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
        ? h('p', { class: target ? 'target' : 'muted-text' }, target
          ? target.score === 0 && !target.open.length ? _('Target: the owner shut the box (score 0).') : _('Target: score {score}, open {tiles}.', { score: formatNumber(target.score), tiles: target.open.join(' ') })
          : _('The owner has not played yet: no target to show.'))
        : null);
    clear(active, info, stage);
    title.focus();

    /**
     * @param {Schemas['BoxRunResult'] | null} result
     * @param {string} [note]
     */
    const finished = (result, note) => {
      round?.destroy();
      round = null;
      saveJSON(progressKey, null);
      saveJSON(playedKey(code), { played: true });
      const view = result ? renderResult(result, { title: _('Your result') }) : null;
      forms.hidden = false;
      clear(stage, note ? h('p', { class: 'note' }, note) : null, view);
      stage.after(resultsBox);
      results(code, resultsBox, (count) => {
        players.textContent = playersSoFar(count);
      });
      view?.focusHeading();
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
        finished(result);
      } catch (error) {
        if (error instanceof ApiError && error.is('already-played')) {
          finished(null, error.detail);
          return;
        }
        clear(stage, errorNote(error, () => submit(moves, key)));
      }
    };

    if (loadJSON(playedKey(code))?.played) {
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
    openButton.disabled = true;
    try {
      await ensurePlayer();
      /** @type {Schemas['BoxOut']} */
      const box = await api('GET', `/v1/boxes/${encodeURIComponent(code.trim())}?mode=${mode}`, { auth: true });
      activate(box, mode);
    } catch (error) {
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
    clear(created, loading());
    try {
      await ensurePlayer();
      /** @type {Schemas['CreatedBox']} */
      const box = await api('POST', '/v1/boxes', { body: /** @satisfies {Schemas['NewBox']} */ ({ rules: form.value() }), auth: true, idempotencyKey: uuid() });
      const link = boxLink(box.display_code);
      clear(created,
        h('h3', {}, _('Your box is ready')),
        h('p', { class: 'box-code', 'data-code': box.display_code }, box.display_code),
        h('p', { class: 'muted-text' }, _('Share this code or link with your friends, then play it yourself.')),
        h('p', { class: 'box-link' }, h('a', { href: link }, link)),
        h('div', { class: 'actions' },
          copyButton(() => link, _('Copy link')),
          h('button', { type: 'button', class: 'primary', onclick: () => activate({ ...box, players: 0 }, 'blind', { autostart: true }) }, _('Play it now'))));
    } catch (error) {
      clear(created, errorNote(error));
    } finally {
      createButton.disabled = false;
    }
  });

  return {
    el,
    show(params = {}) {
      if (params.code) {
        codeInput.value = params.code;
        const blind = /** @type {HTMLInputElement} */ (openForm.querySelector(`input[name="${modeName}"][value="blind"]`));
        blind.checked = true;
        open(params.code, 'blind');
      }
    },
    destroy() {
      round?.destroy();
      el.remove();
    },
  };
}
