/**
 * A typed client of the Shut the Box Challenge HTTP API.
 *
 * Everything here is generated from, or derived from, `openapi/openapi.json` (see
 * `src/schema.d.ts`, made by `npm run generate`): the client is
 * [openapi-fetch](https://openapi-ts.dev/openapi-fetch/) over the document's `paths`,
 * with a middleware that sends the player's bearer token. Nothing is written by hand
 * about a path's parameters, bodies or answers, so the client can't disagree with the
 * document; where the document is wrong, the types are wrong, and
 * `test/every-operation.ts` says so at compile time.
 *
 * @example
 * ```ts
 * const token = newToken(); // keep it: it is the player
 * const api = createShutboxClient({ baseUrl: "https://shutbox.example", token });
 * await api.POST("/v1/players", { body: { token, time_zone: "Europe/Oslo" } });
 * const { data, error, response } = await api.POST("/v1/daily/{day}/runs", {
 *   params: { path: { day: "2026-11-29" } },
 *   body: { moves: [[9], [8, 1]] },
 *   headers: { "Idempotency-Key": idempotencyKey() },
 * });
 * if (error) {
 *   // RFC 9457 problem details: switch on `error.type` ("/problems/<slug>").
 * } else {
 *   console.log(data.score, data.rank.position, data.streak.current);
 * }
 * ```
 *
 * @module
 */

import createClient, {
  type Client,
  type ClientOptions,
  type FetchResponse,
  type Middleware,
  type RequestBodyOption,
} from "openapi-fetch";
import type { paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

/** The typed client: `GET`, `POST`, `PATCH` ... on the document's paths. */
export type ShutboxClient = Client<paths>;

/** Options of {@link createShutboxClient}. */
export interface ShutboxClientOptions {
  /** Where the API is, e.g. `https://shutbox.example` (no trailing `/v1`). */
  baseUrl: string;
  /**
   * The player's bearer token, sent as `Authorization: Bearer <token>` on every
   * request; or a function returning the current one (called per request, so a token
   * replaced by a device transfer is picked up). Without it, requests go anonymous.
   * A request that sets `Authorization` itself keeps its own.
   */
  token?: string | (() => string | undefined) | undefined;
  /** A fetch of your own (tests, instrumentation); `globalThis.fetch` by default. */
  fetch?: ((input: Request) => Promise<Response>) | undefined;
  /** Headers sent with every request (e.g. `User-Agent` where a platform allows it). */
  headers?: Record<string, string> | undefined;
}

/**
 * A client of the API at `baseUrl`, acting as the player behind `token` (if any).
 *
 * Every method answers `{ data, error, response }`: `data` on a 2xx, `error` (the
 * problem details, typed per operation) on a 4xx or 5xx, and always the raw
 * `response` (status, `Retry-After`, `ETag`). A `304 Not Modified` has neither `data`
 * nor `error`: check `response.status` when you send `If-None-Match`.
 */
export function createShutboxClient(options: ShutboxClientOptions): ShutboxClient {
  const clientOptions: ClientOptions = { baseUrl: options.baseUrl.replace(/\/+$/, "") };
  if (options.fetch !== undefined) {
    clientOptions.fetch = options.fetch;
  }
  if (options.headers !== undefined) {
    clientOptions.headers = options.headers;
  }
  const client = createClient<paths>(clientOptions);
  if (options.token !== undefined) {
    client.use(bearerToken(options.token));
  }
  return client;
}

/**
 * The middleware that sends `Authorization: Bearer <token>`, for a client made with
 * openapi-fetch's own `createClient<paths>()`.
 */
export function bearerToken(token: string | (() => string | undefined)): Middleware {
  return {
    onRequest({ request }) {
      const current = typeof token === "function" ? token() : token;
      if (current !== undefined && current !== "" && !request.headers.has("Authorization")) {
        request.headers.set("Authorization", `Bearer ${current}`);
      }
      return request;
    },
  };
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Bytes as URL-safe base64 without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let text = "";
  for (let at = 0; at < bytes.length; at += 3) {
    const chunk = bytes.subarray(at, at + 3);
    const bits = ((chunk[0] ?? 0) << 16) | ((chunk[1] ?? 0) << 8) | (chunk[2] ?? 0);
    const symbols = chunk.length + 1; // 3 bytes: 4 symbols, 2: 3, 1: 2
    for (let k = 0; k < symbols; k += 1) {
      text += BASE64URL.charAt((bits >> (18 - 6 * k)) & 63);
    }
  }
  return text;
}

/** `count` bytes from the platform's cryptographic random generator (WebCrypto). */
export function randomBytes(count: number): Uint8Array {
  const bytes = new Uint8Array(count);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

/**
 * A new bearer token: 32 random bytes in URL-safe base64 without padding (43
 * characters). The recommended way to create a player: make the token on the device,
 * store it, and send it as `token` to `POST /v1/players`; a retry that lost its answer
 * then finds the same player (`200`) instead of making a second one.
 */
export function newToken(): string {
  return base64url(randomBytes(32));
}

/**
 * A new `Idempotency-Key` (16 random bytes, URL-safe base64): send the same key when
 * you retry the same creating `POST` (a run, a box, a player), and a new key for a new
 * request. The same key with another body is `422 idempotency-key-reused`.
 */
export function idempotencyKey(): string {
  return base64url(randomBytes(16));
}

/**
 * Seconds to wait before retrying, from a response's `Retry-After` (sent with `429`
 * and `503`): a number of seconds or an HTTP date; `undefined` when absent or unreadable.
 */
export function retryAfter(response: Response, now: Date = new Date()): number | undefined {
  const value = response.headers.get("Retry-After");
  if (value === null || value.trim() === "") {
    return undefined;
  }
  if (/^\s*\d+\s*$/.test(value)) {
    return Number.parseInt(value, 10);
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

// --- Types of the document's bodies, by operation -------------------------------------
//
// Derived from `paths` (whose paths, methods and statuses are the fixed contract), not
// from the names of component schemas (the generator's business), and through
// openapi-fetch's own types, so that an alias is exactly what the client hands out
// (openapi-fetch reads a `[d1, d2]` tuple as `number[]`, for instance).

type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

/** The methods of a path that have an operation. */
export type MethodOf<P extends keyof paths> = {
  [M in keyof paths[P] & HttpMethod]: [paths[P][M]] extends [undefined] ? never : M;
}[keyof paths[P] & HttpMethod];

/** Every operation of the document, as `[path, method]`. */
export type OperationKey = {
  [P in keyof paths]: MethodOf<P> extends infer M ? (M extends MethodOf<P> ? [P, M] : never) : never;
}[keyof paths];

type Answer<P extends keyof paths, M extends keyof paths[P]> = FetchResponse<
  NonNullable<paths[P][M]>,
  object,
  `${string}/${string}`
>;

/** The body of a successful answer (2xx) of an operation, as `data` holds it. */
export type DataOf<P extends keyof paths, M extends keyof paths[P]> = NonNullable<
  Answer<P, M>["data"]
>;

/** The problem details an operation documents (4xx, 5xx), as `error` holds them. */
export type ProblemOf<P extends keyof paths, M extends keyof paths[P]> = Extract<
  NonNullable<Answer<P, M>["error"]>,
  { type: string; detail: string }
>;

/** The JSON body an operation takes, as `body` takes it. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = NonNullable<
  RequestBodyOption<NonNullable<paths[P][M]>>["body"]
>;

/** Every problem the document documents, of any operation. */
export type Problem = {
  [P in keyof paths]: { [M in keyof paths[P] & HttpMethod]: ProblemOf<P, M> }[keyof paths[P] &
    HttpMethod];
}[keyof paths];

/** The stable `type` of a problem, `/problems/<slug>`. */
export type ProblemType = Problem["type"];

/** The problem of one `type`, with the members the document gives it. */
export type ProblemOfType<T extends ProblemType> = Problem extends infer Each
  ? Each extends { type: infer Types }
    ? T extends Types
      ? Each & { type: T }
      : never
    : never
  : never;

/** The rules object of a request (every field optional: the standard rules). */
export type Rules = NonNullable<RequestBody<"/v1/analyze", "post">["rules"]>;
/** One move: a list of tiles (two dice), or `{ dice: 1 | 2, tiles }`. */
export type Move = RequestBody<"/v1/daily/{day}/runs", "post">["moves"][number];

export type DailyDice = DataOf<"/v1/daily/{day}", "get">;
/** The rules as the server states them in an answer (every field given). */
export type RulesOut = DailyDice["rules"];
/** One roll of a sequence, `[d1, d2]`. */
export type Roll = DailyDice["dice"][number];
/** A verified, analysed run on dealt or given dice (`POST /v1/analyze`): nothing stored. */
export type RunResult = DataOf<"/v1/analyze", "post">;
/** The answer of an official daily run: the run result with its streak and rank. */
export type DailyRunResult = DataOf<"/v1/daily/{day}/runs", "post">;
/** A player's official daily run shown again, with its rank as it stands now. */
export type OfficialDailyRun = DataOf<"/v1/daily/{day}/runs/me", "get">;
export type Analysis = RunResult["analysis"];
export type MoveAnalysis = Analysis["moves"][number];
export type Computers = RunResult["computer"];
export type Rank = NonNullable<OfficialDailyRun["rank"]>;
export type Streak = DataOf<"/v1/players/me/streak", "get">;
/** The player's today, for a reminder before it closes (`GET /v1/players/me/today`). */
export type Today = DataOf<"/v1/players/me/today", "get">;
export type Leaderboard = DataOf<"/v1/daily/{day}/leaderboard", "get">;
export type ShareText = DataOf<"/v1/daily/{day}/share", "get">;
export type HistoryEntry = DataOf<"/v1/players/me/history", "get">[number];
/** The player's figures over their official daily runs (`GET /v1/players/me/stats`). */
export type PlayerStats = DataOf<"/v1/players/me/stats", "get">;
/** A practice run of a date closed everywhere: the run result, never official, with `would_rank`. */
export type PracticeRunResult = DataOf<"/v1/daily/{day}/practice", "post">;
/** Where a practice run would have ranked among the date's official runs (itself counted). */
export type WouldRank = PracticeRunResult["would_rank"];
/** One of the player's kept practice runs (`GET /v1/players/me/practice`), one a date. */
export type PracticeEntry = DataOf<"/v1/players/me/practice", "get">[number];

export type CreatedPlayer = DataOf<"/v1/players", "post">;
export type Player = DataOf<"/v1/players/me", "patch">;
export type PlayerWithStreak = DataOf<"/v1/players/me", "get">;
export type TransferCode = DataOf<"/v1/players/me/transfer", "post">;

/** The player's friend code (`POST /v1/players/me/friend-code`): a new one revokes the last. */
export type FriendCode = DataOf<"/v1/players/me/friend-code", "post">;
/** A friend, as redeeming their code answers (`POST /v1/friends`). */
export type Friend = DataOf<"/v1/friends", "post">;
/** A friend with their daily streak (`GET /v1/friends`, 200 at most). */
export type FriendWithStreak = DataOf<"/v1/friends", "get">[number];
/** A date's official runs by the player and their friends, best first. */
export type FriendsBoard = DataOf<"/v1/daily/{day}/friends", "get">;
/** One run on a friends' board: its place (ties share it) and whether it is the caller's. */
export type FriendsBoardEntry = FriendsBoard["players"][number];

export type CreatedBox = DataOf<"/v1/boxes", "post">;
export type Box = DataOf<"/v1/boxes/{code}", "get">;
/** A run of a Friend Box, with `versus` the owner once the owner has played. */
export type BoxRunResult = DataOf<"/v1/boxes/{code}/runs", "post">;
export type BoxResult = DataOf<"/v1/boxes/{code}/results", "get">[number];

/** A series as one of its players sees it (`GET /v1/series/{code}`, and every answer about it). */
export type Series = DataOf<"/v1/series/{code}", "get">;
/** A series' format: `rounds`, `to_score` or `elimination`, told apart by `kind`. */
export type SeriesFormat = Series["format"];
/** A seat of a series and its scores per round (null: not played, or not shown yet). */
export type SeriesPlayer = Series["players"][number];
/** The round the player plays next, with its dice. */
export type SeriesNextRound = NonNullable<Series["next"]>;
/** A run of a round of a series, with the series as it stood after it. */
export type SeriesRunResult = DataOf<"/v1/series/{code}/rounds/{round}/runs", "post">;

export type Hint = DataOf<"/v1/hint", "post">;
/** What `POST /v1/moves` takes: `open`, `roll` (`[d1, d2]`), and `rules`, `dice` if not the defaults. */
export type LegalMovesRequest = RequestBody<"/v1/moves", "post">;
/** The legal sets of a roll in a position (`sets`), the tiles they use, whether one die is allowed. */
export type LegalMoves = DataOf<"/v1/moves", "post">;
export type Solution = DataOf<"/v1/solution", "get">;
export type RulesCatalog = DataOf<"/v1/rules", "get">;

// --- Helpers of an operation ------------------------------------------------------------

/**
 * The legal moves of a roll (`POST /v1/moves`): every set of tiles `roll` lets the
 * player close with the tiles `open` open under `rules` (the standard rules when left
 * out), the sets closing the highest tiles first, and `tiles`, the open tiles any of
 * them uses: what a client offers, and the tiles it dims, under every variant, without
 * coding the rules itself. With `dice: 1` only the roll's first die counts; left out,
 * the dice the rules have the player roll there (one die where they make it a must).
 * No figures, no ranking (`POST /v1/hint` ranks), allowed on any dice.
 *
 * @example
 * ```ts
 * const { data, error } = await legalMoves(api, { open: [1, 2, 3, 4, 5, 6, 7, 8, 9], roll: [3, 4] });
 * if (data) {
 *   console.log(data.sets); // [[7], [1, 6], [2, 5], [3, 4], [1, 2, 4]]
 * } else if (error.type === "/problems/one-die-not-allowed") {
 *   // dice: 1 where the rules do not allow one die: error.detail says why
 * }
 * ```
 */
export function legalMoves(api: ShutboxClient, request: LegalMovesRequest) {
  return api.POST("/v1/moves", { body: request });
}
