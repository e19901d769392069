// @ts-check
// The same origin's /v1 API. Every error is RFC 9457 problem details: an ApiError
// carries the problem (type, title, status, detail and any extra members).
import { _, language } from './strings.js';

/**
 * The API's types as the OpenAPI document has them (openapi/openapi.json, from which
 * clients/typescript/src/schema.d.ts is generated): `Schemas['RunResult']` and so on.
 * Only the type check reads this; the browser never loads that file.
 * @typedef {import('../../../clients/typescript/src/schema').components['schemas']} Schemas
 */
/**
 * A problem (RFC 9457) as the page has it: the members of the problem the server sent,
 * or the ones the page gives a failure without one.
 * @typedef {{type?: string, title?: string, status?: number, detail?: string} & Record<string, unknown>} Problem
 */

export class ApiError extends Error {
  /** @param {Problem} problem */
  constructor(problem) {
    super(problem.detail || problem.title || _('Something went wrong.'));
    this.name = 'ApiError';
    this.problem = problem;
    this.status = problem.status ?? 0;
    this.type = problem.type ?? '';
  }

  // Whether this is the problem /problems/<slug>.
  /** @param {string} slug */
  is(slug) {
    return this.type === `/problems/${slug}` || this.type.endsWith(`/problems/${slug}`);
  }

  // What to show a player: the server's detail, or a plain sentence.
  get detail() {
    return this.message;
  }
}

/** @param {Uint8Array} bytes */
function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// A random UUID (version 4) from crypto.getRandomValues: crypto.randomUUID needs a
// secure context, and the page may be served over plain HTTP on a local network.
export function uuid() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = hex(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** @type {() => string | null} */
let tokenSource = () => null;

// Where the bearer token comes from (the stored player), set once by the app.
/** @param {() => string | null} source */
export function useToken(source) {
  tokenSource = source;
}

// api('POST', '/v1/boxes', { body, auth: true, idempotencyKey }) → the decoded JSON.
/**
 * @param {'GET' | 'POST' | 'PATCH' | 'DELETE'} method
 * @param {string} path
 * @param {{body?: unknown, auth?: boolean, idempotencyKey?: string, token?: string}} [options]
 *   auth: with the stored player's token; token: with this one
 * @returns {Promise<any>} the answer's JSON: the caller names its schema (`Schemas[...]`)
 */
export async function api(method, path, { body, auth = false, idempotencyKey, token } = {}) {
  // The server's texts (problem details, share text, rules lines) in the page's language.
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json', 'Accept-Language': language() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const bearer = token ?? (auth ? tokenSource() : null);
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-cache',
    });
  } catch {
    const unreachable = _('The server could not be reached. Check your connection and try again.');
    throw new ApiError({ status: 0, type: '/problems/network', title: unreachable, detail: unreachable });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    /** @type {Problem} */
    const problem = data && typeof data === 'object' ? data : {};
    if (!problem.status) problem.status = response.status;
    if (!problem.detail && !problem.title) problem.detail = _('The server answered with status {status}.', { status: response.status });
    if (response.status === 401 && bearer) window.dispatchEvent(new CustomEvent('shutbox:unauthorized'));
    if (response.status === 429) {
      const wait = response.headers.get('Retry-After');
      if (wait) {
        const again = _('Try again in {seconds} s.', { seconds: wait });
        problem.detail = `${problem.detail ?? problem.title} ${again}`;
      }
    }
    throw new ApiError(problem);
  }
  return data;
}
