// Friend Box: make a box and share its code, or open one by code; play it blind or
// against the owner's final position; the result versus the owner and everyone's results.
import { api, uuid } from './api.js';
import { clear, h, uniqueId } from './dom.js';
import { Round } from './game.js';
import { ensurePlayer, loadJSON, saveJSON, storedPlayer } from './player.js';
import { copyButton, renderResult } from './result.js';
import { formatNumber, formatTime, t, tn } from './strings.js';
import { errorNote, loading, rulesForm, rulesSummary, viewHeader } from './ui.js';

function boxLink(code) {
  return `${location.origin}/play#box=${encodeURIComponent(code)}`;
}

export function boxView() {
  // Open a box by code.
  const codeId = uniqueId('box-code');
  const codeInput = h('input', {
    id: codeId, name: 'code', type: 'text', inputmode: 'text', autocomplete: 'off', autocapitalize: 'characters',
    spellcheck: 'false', maxlength: '40', required: true, 'aria-describedby': `${codeId}-help`, class: 'code-input',
  });
  const modeName = uniqueId('mode');
  const modeRadio = (value, label, help, checked) => h('label', { class: 'radio' },
    h('input', { type: 'radio', name: modeName, value, checked }),
    h('span', {}, h('strong', {}, label), ' — ', help));
  const openError = h('div', { class: 'form-error', 'aria-live': 'polite' });
  const openForm = h('form', { class: 'panel open-box', novalidate: true },
    h('h2', {}, t('box.openTitle')),
    h('div', { class: 'field' },
      h('label', { for: codeId }, t('box.code')),
      h('div', { class: 'inline' }, codeInput, h('button', { type: 'submit', class: 'primary' }, t('box.open'))),
      openError,
      h('p', { class: 'field-help', id: `${codeId}-help` }, t('box.codeHelp'))),
    h('fieldset', { class: 'modes' },
      h('legend', {}, t('box.mode')),
      modeRadio('blind', t('box.blind'), t('box.blindHelp'), true),
      modeRadio('target', t('box.target'), t('box.targetHelp'), false)));

  // Make a box.
  const form = rulesForm();
  const created = h('div', { class: 'created', 'aria-live': 'polite' });
  const createButton = h('button', { type: 'submit', class: 'primary' }, t('box.create'));
  const createForm = h('form', { class: 'panel create-box' },
    h('h2', {}, t('box.createTitle')),
    h('p', { class: 'muted-text' }, t('box.createHelp')),
    h('details', { class: 'rules-details' }, h('summary', {}, t('box.rules'), h('span', { class: 'summary-note' }, t('box.rulesNote'))), form.el),
    createButton, created);

  // The box being played.
  const active = h('div', { class: 'active-box' });
  const forms = h('div', { class: 'box-forms' }, openForm, createForm);
  const el = h('section', { class: 'view view-box' }, viewHeader(t('box.title'), t('box.intro')), active, forms);

  let round = null;

  async function results(code, into, onCount = () => {}) {
    clear(into, loading());
    try {
      const list = await api('GET', `/v1/boxes/${encodeURIComponent(code)}/results`, { auth: true });
      onCount(list.length);
      clear(into, h('h3', {}, t('box.results')), list.length
        ? h('ol', { class: 'results' }, list.map((r, i) => h('li', {},
          h('span', { class: 'results-rank' }, formatNumber(i + 1)),
          h('span', { class: 'results-name' }, r.name ?? t('common.anonymous')),
          h('span', { class: 'results-score' }, formatNumber(r.score), r.shut ? h('span', { class: 'chip chip-best' }, t('box.shutShort')) : null),
          h('span', { class: 'chip' }, r.mode === 'target' ? t('box.modeTarget') : t('box.modeBlind')),
          h('time', { class: 'results-time', datetime: r.submitted_at }, formatTime(r.submitted_at)))))
        : h('p', { class: 'muted-text' }, t('box.noResults')));
    } catch (error) {
      clear(into, errorNote(error));
    }
  }

  function playedKey(code) {
    return `boxes.${storedPlayer()?.id}.${code}`;
  }

  function activate(box, mode, { autostart = false } = {}) {
    round?.destroy();
    round = null;
    const code = box.code;
    const target = box.target ?? null;
    const runMode = target ? 'target' : mode; // a player shown the target plays a target run
    const progressKey = `progress.box.${storedPlayer()?.id}.${code}`;
    const resultsBox = h('section', { class: 'panel results-panel', 'aria-live': 'polite' });
    const stage = h('div', { class: 'stage' });
    const players = h('span', { class: 'box-players' }, box.players !== undefined ? tn('box.players', box.players) : '');
    const info = h('div', { class: 'panel box-info' },
      h('h2', { tabindex: '-1' }, t('box.info', { code: box.display_code })),
      h('p', { class: 'box-meta' },
        h('span', {}, t('box.owner', { name: box.owner?.name ?? t('common.anonymous') })),
        players,
        h('span', {}, rulesSummary(box.rules))),
      mode === 'target'
        ? h('p', { class: target ? 'target' : 'muted-text' }, target
          ? target.score === 0 && !target.open.length ? t('box.targetShut') : t('box.targetShown', { score: formatNumber(target.score), tiles: target.open.join(' ') })
          : t('box.noTarget'))
        : null);
    clear(active, info, stage);
    info.querySelector('h2').focus();

    const finished = (result, note) => {
      round?.destroy();
      round = null;
      saveJSON(progressKey, null);
      saveJSON(playedKey(code), { played: true });
      const view = result ? renderResult(result, { title: t('result.title') }) : null;
      forms.hidden = false;
      clear(stage, note ? h('p', { class: 'note' }, note) : null, view);
      stage.after(resultsBox);
      results(code, resultsBox, (count) => {
        players.textContent = tn('box.players', count);
      });
      view?.focusHeading();
    };

    const submit = async (moves, key) => {
      clear(stage, loading(t('box.submitting')));
      try {
        const result = await api('POST', `/v1/boxes/${encodeURIComponent(code)}/runs`, {
          body: { moves, mode: runMode }, auth: true, idempotencyKey: key,
        });
        finished(result);
      } catch (error) {
        if (error.is?.('already-played')) {
          finished(null, error.detail);
          return;
        }
        clear(stage, errorNote(error, () => submit(moves, key)));
      }
    };

    if (loadJSON(playedKey(code))?.played) {
      finished(null, t('box.alreadyPlayed'));
      return;
    }
    const saved = loadJSON(progressKey, null);
    const key = saved?.key ?? uuid();
    const start = () => {
      round = new Round({
        rules: box.rules,
        dice: box.dice,
        moves: saved?.moves ?? [],
        label: t('box.playing', { code: box.display_code }),
        onMove: (moves) => saveJSON(progressKey, { key, moves }),
        onEnd: ({ moves }) => setTimeout(() => submit(moves, key), 900),
      });
      forms.hidden = true; // one thing at a time while the round is on
      clear(stage, round.el);
      round.focus();
    };
    if (saved?.moves?.length || autostart) start();
    else clear(stage, h('div', { class: 'start-card' }, h('button', { type: 'button', class: 'primary big', onclick: start }, t('box.play'))));
  }

  async function open(code, mode) {
    clear(openError);
    codeInput.removeAttribute('aria-invalid');
    if (!code.trim()) {
      codeInput.focus();
      return;
    }
    const button = openForm.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      await ensurePlayer();
      const box = await api('GET', `/v1/boxes/${encodeURIComponent(code.trim())}?mode=${mode}`, { auth: true });
      activate(box, mode);
    } catch (error) {
      codeInput.setAttribute('aria-invalid', 'true');
      clear(openError, errorNote(error));
      codeInput.focus();
    } finally {
      button.disabled = false;
    }
  }

  openForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const mode = openForm.querySelector(`input[name="${modeName}"]:checked`)?.value ?? 'blind';
    open(codeInput.value, mode);
  });

  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    createButton.disabled = true;
    clear(created, loading());
    try {
      await ensurePlayer();
      const box = await api('POST', '/v1/boxes', { body: { rules: form.value() }, auth: true, idempotencyKey: uuid() });
      const link = boxLink(box.display_code);
      clear(created,
        h('h3', {}, t('box.created')),
        h('p', { class: 'box-code', 'data-code': box.display_code }, box.display_code),
        h('p', { class: 'muted-text' }, t('box.shareCode')),
        h('p', { class: 'box-link' }, h('a', { href: link }, link)),
        h('div', { class: 'actions' },
          copyButton(() => link, t('box.copyLink')),
          h('button', { type: 'button', class: 'primary', onclick: () => activate({ ...box, players: 0 }, 'blind', { autostart: true }) }, t('box.playNow'))));
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
        const blind = openForm.querySelector(`input[name="${modeName}"][value="blind"]`);
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
