// @ts-check
// A tiny DOM helper: h('button', { class: 'primary', onclick }, 'text', child, ...).
// Text is always set as text (never parsed as HTML); the page builds every element here.

/**
 * An element's attributes: a value is set as its text (true as an empty attribute; null,
 * undefined and false leave it out), but `class` may be a list (falsy entries dropped),
 * `dataset` an object, `text` the element's text and `on<event>` a listener.
 * @typedef {Record<string, unknown>} Attrs
 */
/**
 * What an element is given as its children: nodes, text (numbers too), lists of them
 * at any depth; null, undefined and false are left out.
 * @typedef {Node | string | number | boolean | null | undefined | readonly unknown[]} Child
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * @param {HTMLElement | SVGElement} element
 * @param {Attrs | null | undefined} attrs
 */
function set(element, attrs) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') element.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : String(value));
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === 'text') element.textContent = String(value);
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
}

/**
 * @template {Element} E
 * @param {E} element
 * @param {Child[]} children
 * @returns {E}
 */
export function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  set(element, attrs);
  return append(element, children);
}

/**
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  set(element, attrs);
  return append(element, children);
}

/**
 * @template {Element} E
 * @param {E} element
 * @param {...Child} children
 * @returns {E}
 */
export function clear(element, ...children) {
  element.replaceChildren();
  return append(element, children);
}

// The pips of a die face on a 100 x 100 box.
/** @type {Record<number, [number, number][]>} */
const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[26, 26], [50, 50], [74, 74]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

// One die as a picture (hidden from screen readers: the roll is announced as text).
// value 0 draws a blank die (not rolled yet).
/**
 * @param {number} value
 * @param {string} [extra] more classes
 */
export function die(value, extra = '') {
  return svg(
    'svg',
    { class: ['die', extra, value ? '' : 'die-blank'], viewBox: '0 0 100 100', 'aria-hidden': 'true', focusable: 'false' },
    svg('rect', { x: 4, y: 4, width: 92, height: 92, rx: 18, class: 'die-face' }),
    (PIPS[value] ?? []).map(([cx, cy]) => svg('circle', { cx, cy, r: 9, class: 'die-pip' })),
    value ? null : svg('text', { x: 50, y: 64, 'text-anchor': 'middle', class: 'die-question' }, '?'),
  );
}

let counter = 0;
/** @param {string} [prefix] */
export function uniqueId(prefix = 'id') {
  counter += 1;
  return `${prefix}-${counter}`;
}
