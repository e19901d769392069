/**
 * Every operation of openapi/openapi.json, called through the typed client the way a
 * client developer writes it against the document. Compiled by `npm run check`
 * (strict), never run.
 *
 * Answers and problem members are read without casts, `any` or suppressions: a
 * problem is narrowed by its `type`, and a member the server always sends is read
 * without optional chaining. So a line that stops compiling is a place where the
 * document stopped telling the truth about the server (or the API broke a client),
 * e.g. a problem type an operation answers but does not document, a member that is
 * missing, a field the server always sends documented as optional.
 */

import {
  createShutboxClient,
  idempotencyKey,
  legalMoves,
  newToken,
  retryAfter,
  type DailyRunResult,
  type MethodOf,
  type Move,
  type RequestBody,
  type ShutboxClient,
} from "../src/index.js";
import type { paths } from "../src/schema.js";

type Step = (api: ShutboxClient) => Promise<void>;

/**
 * The operations this program calls, one entry per path and method of the document:
 * an operation added to the document leaves this type unsatisfied until the program
 * calls it too.
 */
type EveryOperation = { [P in keyof paths]: { [M in MethodOf<P>]: Step } };

const DAY = "2026-11-29";
const BOX = "7M3Q-K2ZD2";
/** The path parameters of the date and of the box the calls ask about. */
const ON_DAY = { path: { day: DAY } };
const ON_BOX = { path: { code: BOX } };
/** The problems of a request that may succeed when sent again after a back-off. */
const RETRY_LATER: readonly (
  | "/problems/rate-limited"
  | "/problems/database-unavailable"
  | "/problems/database-timeout"
)[] = ["/problems/rate-limited", "/problems/database-unavailable", "/problems/database-timeout"];

function show(...parts: unknown[]): void {
  console.log(...parts);
}

/** Wait as long as a 429 or 503 asks (`Retry-After`), 1 s when it does not say. */
async function backOff(response: Response): Promise<void> {
  const seconds = retryAfter(response) ?? 1;
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/**
 * A problem whose members need not be read: its detail after the words given for its
 * `type`; else a back-off when it is one of `waitOn`; else its status, title and
 * detail. Every type named, in `waitOn` or in `words`, is one the operation documents,
 * or the call does not compile.
 */
async function waitOrShow<T extends string>(
  error: { type: T; status: number; title: string; detail: string },
  response: Response,
  waitOn: readonly NoInfer<T>[],
  words: { readonly [K in NoInfer<T>]?: string } = {},
): Promise<void> {
  const said = words[error.type];
  if (said !== undefined) {
    show(said, error.detail);
  } else if (waitOn.includes(error.type)) {
    await backOff(response);
  } else {
    show(error.status, error.title, error.detail);
  }
}

/**
 * A refused move: its index and why, and `more` after them. The members are read as the
 * problem documents them (always sent), or the call does not compile.
 */
function showMoveProblem(error: { move_index: number; reason: string }, ...more: unknown[]): void {
  show(`move ${error.move_index}: ${error.reason}`, ...more);
}

/** A page of entries by date, newest first: the next page is of the dates before the last. */
function showNextPage(entries: readonly { date: string }[]): void {
  show("next page before", entries.at(-1)?.date);
}

/** The run of a box or a round that stands: one a player. */
function showRunStands(error: { official_run_id: string }, of: string): void {
  show(`your run of this ${of} stands:`, error.official_run_id);
}

// --- Operations -----------------------------------------------------------------------

const healthz: Step = async (api) => {
  const { data } = await api.GET("/healthz");
  if (data) {
    const status: "ok" = data.status;
    show(status);
  }
};

const readyz: Step = async (api) => {
  const { data, error } = await api.GET("/readyz");
  if (data) {
    show(data.status, data.database, data.redis);
  } else if ("database" in error) {
    // 503: not ready (the database does not answer), with the same body.
    const database: "up" | "down" = error.database;
    show(error.status, database, error.redis);
  } else {
    // A query parameter it does not take (400), or the proxy's own answers (a request it
    // cannot read, too long or too large, too many in flight, no replica up, ...).
    const kind:
      | "/problems/invalid-request"
      | "/problems/request-timeout"
      | "/problems/body-too-large"
      | "/problems/uri-too-long"
      | "/problems/rate-limited"
      | "/problems/headers-too-large"
      | "/problems/internal-error"
      | "/problems/unavailable" = error.type;
    show(kind, error.detail);
  }
};

const createPlayer: Step = async (api) => {
  // The recommended way: the app makes the token; a retry with it finds the player.
  // No `time_zone`: the server takes UTC.
  const token = newToken();
  const { data, error, response } = await api.POST("/v1/players", {
    body: { token, name: "Ada" },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    const again = response.status === 200; // the token already had a player
    show(again, data.id, data.name ?? "(no name)", data.time_zone, data.token === token);
    return;
  }
  // After a back-off, retry with the same token and key.
  await waitOrShow(error, response, RETRY_LATER, {
    "/problems/weak-token": "fix the request:",
    "/problems/invalid-name": "fix the request:",
    "/problems/unknown-time-zone": "fix the request:",
    "/problems/token-not-kept": "create the player with a new Idempotency-Key:",
    "/problems/idempotency-key-reused": "a new request needs a new key:",
  });
};

const getMe: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/players/me");
  if (data) {
    const current: number = data.streak.current;
    show(data.id, data.name, data.time_zone, data.created_at, current, data.streak.best);
    show(data.streak.last_played ?? "never played", data.streak.played_today);
    return;
  }
  if (error.type === "/problems/unauthorized") {
    show("sign in again:", response.headers.get("WWW-Authenticate"), error.detail);
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"]);
  }
};

const updateMe: Step = async (api) => {
  const { data, error, response } = await api.PATCH("/v1/players/me", {
    body: { time_zone: "Europe/Oslo", name: null },
  });
  if (data) {
    show(data.time_zone, data.name, data.created_at);
    return;
  }
  if (error.type === "/problems/time-zone-change-too-soon") {
    const possibleAt: string = error.possible_at;
    show("the time zone can change again from", new Date(possibleAt).toLocaleString());
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"], {
      "/problems/unknown-time-zone": "fix the request:",
      "/problems/invalid-name": "fix the request:",
      "/problems/unauthorized": "sign in again:",
    });
  }
};

const getMyStreak: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/players/me/streak");
  if (data) {
    const best: number = data.best;
    show(data.current, best, data.last_played, data.played_today);
    const freezes: number = data.freezes;
    show(freezes, data.weekly.current, data.weekly.best);
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"]);
  }
};

const getMyToday: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/players/me/today");
  if (data) {
    const closesAt: string = data.closes_at;
    show(data.date, closesAt, data.played, data.at_risk, data.streak.current);
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"]);
  }
};

const getMyHistory: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/players/me/history", {
    params: { query: { before: DAY, limit: 30 } },
  });
  if (data) {
    for (const entry of data) {
      if (entry.frozen || entry.rank === undefined) {
        show(entry.date, "frozen");
        continue;
      }
      const position: number = entry.rank.position;
      show(entry.date, entry.score, entry.shut, position, entry.rank.players);
    }
    showNextPage(data);
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"]);
  }
};

const getMyStats: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/players/me/stats");
  if (data) {
    const meanCost: number | null = data.mean_cost; // null: no official run yet
    show(data.played, data.shut, data.shut_rate, data.mean_score, data.mean_best_possible);
    show(meanCost, data.streak.current, data.streak.best);
    for (const [score, runs] of Object.entries(data.distribution)) {
      show(`score ${score}: ${runs} runs`);
    }
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"]);
  }
};

const offerTransfer: Step = async (api) => {
  const { data, error, response } = await api.POST("/v1/players/me/transfer");
  if (data) {
    show("type this on the new device:", data.display_code, "until", data.expires_at, data.code);
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/unauthorized": "sign in again:",
  });
};

const claimTransfer: Step = async (api) => {
  // On the new device: its own token, so that a claim that lost its answer can retry.
  const token = newToken();
  const { data, error, response } = await api.POST("/v1/players/claim", {
    body: { code: "7M3Q-K2ZD-PX4T9", token },
  });
  if (data) {
    const sameToken: boolean = data.token === token;
    show("welcome back", data.name, data.id, data.time_zone, sameToken);
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/mistyped-code": "check the code:",
    "/problems/invalid-code": "check the code:",
    "/problems/unknown-transfer-code": "ask the old device for a new code:",
    "/problems/token-taken": "make a new token:",
    "/problems/weak-token": "make a new token:",
  });
};

const getDailyDice: Step = async (api) => {
  const etag = '"previous"';
  const { data, error, response } = await api.GET("/v1/daily/{day}", {
    params: ON_DAY,
    headers: { "If-None-Match": etag },
  });
  if (response.status === 304) {
    show("the dice held already are current");
    return;
  }
  if (data) {
    const first = data.dice[0];
    show(data.date, data.sequence, data.rules.tiles, data.rules.one_die, first?.[0], first?.[1]);
    show(response.headers.get("ETag"));
    return;
  }
  await waitOrShow(error, response, RETRY_LATER, {
    "/problems/unknown-date": "no Daily Dice that day:",
    "/problems/invalid-date": "not a date:",
  });
};

/** A daily run's answer: score, rank and streak, and the analysis of each roll. */
function showDailyResult(result: DailyRunResult): void {
  const runId: string = result.run_id;
  const position: number = result.rank.position;
  const current: number = result.streak.current;
  show(runId, result.score, result.shut, result.rolls_used, result.open);
  show(`#${position} of ${result.rank.players} (${result.rank.percentile}%), streak ${current}`);
  show(result.streak.best, result.streak.played_today, result.streak.last_played);
  show(result.analysis.best_possible, result.analysis.total_cost);
  for (const move of result.analysis.moves) {
    show(move.index, move.roll.join(" + "), move.chosen, move.best, move.label, move.hindsight_cost);
  }
  show(result.computer.easy.score, result.computer.medium.score, result.computer.hard.score);
}

const submitDailyRun: Step = async (api) => {
  const moves: Move[] = [[9], [8, 1], [7], [6, 2]];
  const key = idempotencyKey(); // the same key for every retry of this run
  const { data, error, response } = await api.POST("/v1/daily/{day}/runs", {
    params: ON_DAY,
    body: { moves },
    headers: { "Idempotency-Key": key },
  });
  if (data) {
    // 201: the official run; 200: the identical run again, the same answer.
    show(response.status === 201 ? "official" : "sent before");
    showDailyResult(data);
    return;
  }
  switch (error.type) {
    case "/problems/malformed-move":
    case "/problems/not-a-tile":
    case "/problems/tile-repeated":
    case "/problems/tile-not-open":
    case "/problems/wrong-total":
    case "/problems/move-rule-violation":
    case "/problems/one-die-not-allowed":
    case "/problems/move-after-end": {
      // The first offending move, its roll and why, to show on that move.
      const index: number | undefined = error.move_index;
      const reason: string | undefined = error.reason;
      const roll = error.roll;
      show(`move ${index}`, roll ? `roll ${roll.join(" + ")}` : "no roll", reason);
      show("dice used:", error.dice_used);
      break;
    }
    case "/problems/playable-roll-skipped":
    case "/problems/run-ends-early": {
      const possible: number[][] = error.possible;
      showMoveProblem(error, error.roll, possible.map((set) => set.join("+")));
      break;
    }
    case "/problems/already-played": {
      // The official run stands: show it instead.
      const officialRunId: string = error.official_run_id;
      show("already played; the official run is", officialRunId, "at", error.official_run);
      const official = await api.GET("/v1/daily/{day}/runs/me", { params: ON_DAY });
      if (official.data) {
        show(official.data.run_id === officialRunId, official.data.rank.position);
      }
      break;
    }
    default:
      // After a back-off, retry with the same Idempotency-Key.
      await waitOrShow(error, response, RETRY_LATER, {
        "/problems/unauthorized": "sign in again:",
        "/problems/date-not-open": "this date is closed for you:",
        "/problems/unknown-date": "no Daily Dice that day:",
        "/problems/invalid-date": "not a date:",
        "/problems/idempotency-key-reused": "a new run needs a new Idempotency-Key:",
      });
  }
};

const getMyDailyRun: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/daily/{day}/runs/me", { params: ON_DAY });
  if (data) {
    const runId: string = data.run_id;
    const position: number = data.rank.position; // the rank as it stands now
    show(runId, data.score, position, data.rank.players, data.analysis.best_possible);
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/no-official-run": "not played yet:",
  });
};

const getDailyLeaderboard: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/daily/{day}/leaderboard", {
    params: { path: { day: DAY }, query: { limit: 10 } },
  });
  if (data) {
    show(data.date, data.players, data.best_possible, data.mean ?? "-", data.shut_rate ?? "-");
    const shut = data.histogram["0"] ?? 0;
    show("shut the box:", shut);
    for (const entry of data.top) {
      show(entry.rank, entry.name ?? "anonymous", entry.score);
    }
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/leaderboard-hidden": "play the date first:",
    "/problems/unknown-date": "no Daily Dice that day:",
  });
};

const getDailyShareText: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/daily/{day}/share", { params: ON_DAY });
  if (data) {
    const text: string = data.text;
    show(text);
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"], {
      "/problems/no-official-run": "nothing to share yet:",
    });
  }
};

const practiseDailyDate: Step = async (api) => {
  // The archive: a date that has closed everywhere, played again by anyone (with the
  // token, kept as the player's practice run of the date; the key for its retries).
  const moves: Move[] = [[9], [8, 1], [7], [6, 2]];
  const { data, error, response } = await api.POST("/v1/daily/{day}/practice", {
    params: { path: { day: "2026-11-20" } },
    body: { moves },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    const official: false = data.official;
    const { position, players, percentile } = data.would_rank;
    show(official, data.kept, data.score, data.shut, data.analysis.best_possible);
    show(`it would have been #${position} of ${players} (${percentile}%)`);
    return;
  }
  switch (error.type) {
    case "/problems/date-not-closed": {
      const closesAt: string = error.closes_at;
      show("still open somewhere; practise it from", closesAt, error.detail);
      break;
    }
    case "/problems/playable-roll-skipped":
    case "/problems/run-ends-early": {
      showMoveProblem(error, error.roll, error.possible);
      break;
    }
    default:
      await waitOrShow(error, response, RETRY_LATER, {
        "/problems/unauthorized": "sign in again, or practise without a token:",
        "/problems/unknown-date": "no Daily Dice that day:",
        "/problems/invalid-date": "not a date:",
        "/problems/wrong-total": "fix the run:",
        "/problems/tile-not-open": "fix the run:",
        "/problems/idempotency-key-reused": "a new run needs a new Idempotency-Key:",
      });
  }
};

const getMyPractice: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/players/me/practice", {
    params: { query: { before: DAY, limit: 30 } },
  });
  if (data) {
    for (const entry of data) {
      const position: number = entry.would_rank.position;
      show(entry.date, entry.score, entry.shut, entry.best_possible, entry.played_at);
      show(`would rank #${position} of ${entry.would_rank.players}`, entry.would_rank.percentile);
    }
    showNextPage(data);
  } else {
    await waitOrShow(error, response, ["/problems/rate-limited"], {
      "/problems/unauthorized": "sign in again:",
    });
  }
};

const makeFriendCode: Step = async (api) => {
  // A new code revokes the last: a retry needs no Idempotency-Key (show the newest).
  const { data, error, response } = await api.POST("/v1/players/me/friend-code");
  if (data) {
    show("share", data.display_code, data.code);
    return;
  }
  await waitOrShow(error, response, RETRY_LATER, { "/problems/unauthorized": "sign in again:" });
};

const getMyFriendCode: Step = async (api) => {
  // The code made last, on any device the player uses.
  const { data, error, response } = await api.GET("/v1/players/me/friend-code");
  if (data) {
    show("share", data.display_code, data.code);
    return;
  }
  await waitOrShow(error, response, RETRY_LATER, {
    "/problems/no-friend-code": "make a friend code first:",
    "/problems/unauthorized": "sign in again:",
  });
};

const getFriendCode: Step = async (api) => {
  // Whose the code is, before asking the player whether to become friends.
  const { data, error, response } = await api.GET("/v1/friend-codes/{code}", {
    params: { path: { code: "7m3q k2zd2" } },
  });
  if (data) {
    const yours: boolean = data.yours;
    show(yours ? "your own code" : "a code of", data.owner.name ?? "(no name)", data.display_code);
    return;
  }
  await waitOrShow(error, response, RETRY_LATER, {
    "/problems/mistyped-code": "a symbol of the code is mistyped:",
    "/problems/invalid-code": "check the code:",
    "/problems/unknown-friend-code": "ask your friend for their code:",
    "/problems/unauthorized": "sign in again:",
  });
};

const addFriend: Step = async (api) => {
  const { data, error, response } = await api.POST("/v1/friends", {
    body: { code: "7m3q k2zd2" },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    // 201: friends from now on; 200: friends already.
    const id: string = data.id;
    show(response.status === 201 ? "new friend" : "friends already", id, data.name ?? "(no name)");
    return;
  }
  await waitOrShow(error, response, RETRY_LATER, {
    "/problems/mistyped-code": "a symbol of the code is mistyped:",
    "/problems/invalid-code": "check the code:",
    "/problems/unknown-friend-code": "ask your friend for their code:",
    "/problems/own-friend-code": "share it instead:",
    "/problems/too-many-friends": "remove a friend first:",
    "/problems/idempotency-key-reused": "a new request needs a new Idempotency-Key:",
    "/problems/unauthorized": "sign in again:",
  });
};

const listFriends: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/friends");
  if (data) {
    for (const friend of data) {
      const current: number = friend.streak.current;
      show(friend.id, friend.name ?? "anonymous", `streak ${current} (best ${friend.streak.best})`);
    }
    return;
  }
  await waitOrShow(error, response, RETRY_LATER, { "/problems/unauthorized": "sign in again:" });
};

const removeFriend: Step = async (api) => {
  const { error, response } = await api.DELETE("/v1/friends/{friend_id}", {
    params: { path: { friend_id: "3f2c1a9e-6b1d-4c2a-9e8f-0a1b2c3d4e5f" } },
  });
  if (response.status === 204) {
    show("no longer friends");
    return;
  }
  if (error) {
    await waitOrShow(error, response, RETRY_LATER, {
      "/problems/not-a-friend": "not a friend (any more):",
      "/problems/invalid-request": "not a player's id:",
    });
  }
};

const getFriendsBoard: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/daily/{day}/friends", { params: ON_DAY });
  if (data) {
    for (const entry of data.players) {
      const rank: number = entry.rank; // ties share it: 1, 1, 3
      show(entry.me ? "you" : (entry.name ?? "anonymous"), rank, entry.score, entry.shut, entry.id);
    }
    show(data.date);
    return;
  }
  await waitOrShow(error, response, RETRY_LATER, {
    "/problems/leaderboard-hidden": "play the date first:",
    "/problems/unknown-date": "no Daily Dice that day:",
    "/problems/invalid-date": "not a date:",
  });
};

const createBox: Step = async (api) => {
  // A variant: ten tiles, the other rules standard.
  const { data, error, response } = await api.POST("/v1/boxes", {
    body: { rules: { tiles: 10 } },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    show("share", data.display_code, data.code, data.rules.tiles, data.dice.length);
    show(data.owner.name ?? "(no name)");
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/idempotency-key-reused": "a new box needs a new Idempotency-Key:",
    "/problems/unauthorized": "sign in again:",
  });
};

const createBoxFromRun: Step = async (api) => {
  // A Solo round just played on a deal, for a friend: that run is the owner's.
  const { data, error, response } = await api.POST("/v1/boxes", {
    body: {
      from_run: { deal: soloDeal, moves: [[9], [8], [7], { tiles: [2] }], hints_used: 1 },
    },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    show("share", data.display_code, data.dice.length);
    return;
  }
  await waitOrShow(error, response, ["/problems/solver-busy", "/problems/rate-limited"], {
    "/problems/bad-deal": "deal the round again:",
    "/problems/deal-expired": "deal the round again:",
    "/problems/deal-used": "that round made a box already:",
    "/problems/not-dealt": "deal the round first:",
    "/problems/tile-not-open": "not a legal run:",
    "/problems/unauthorized": "sign in again:",
  });
};

const getBox: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/boxes/{code}", {
    params: { path: { code: BOX }, query: { mode: "target" } },
  });
  if (data) {
    show(data.display_code, data.owner.name, data.players, data.rules.scoring, data.dice);
    if (data.target) {
      show("beat", data.target.score, "with", data.target.open, "open");
    }
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/mistyped-code": "a symbol of the code is mistyped:",
    "/problems/invalid-code": "check the code:",
    "/problems/unknown-box": "no such box:",
  });
};

const submitBoxRun: Step = async (api) => {
  // No `mode`: blind, the server's default.
  const { data, error, response } = await api.POST("/v1/boxes/{code}/runs", {
    params: ON_BOX,
    body: { moves: [[10], [9, 1], { dice: 1, tiles: [4] }] },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    const runId: string = data.run_id;
    show(runId, data.score, data.shut, data.sequence, data.analysis.total_cost);
    if (data.versus) {
      show(data.versus.outcome, "against the owner's", data.versus.owner_score);
    }
    return;
  }
  switch (error.type) {
    case "/problems/already-played":
      showRunStands(error, "box");
      break;
    case "/problems/tile-not-open":
    case "/problems/wrong-total":
    case "/problems/move-after-end":
      showMoveProblem(error, error.roll);
      break;
    case "/problems/run-ends-early":
      show(error.move_index, error.possible);
      break;
    default:
      await waitOrShow(error, response, ["/problems/solver-busy", "/problems/rate-limited"], {
        "/problems/unknown-box": "no such box:",
        "/problems/mistyped-code": "a symbol of the code is mistyped:",
      });
  }
};

const getMyBoxRun: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/boxes/{code}/runs/me", { params: ON_BOX });
  if (data) {
    show(data.run_id, data.score, data.analysis.total_cost, data.versus?.outcome ?? "no owner's run yet");
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/no-box-run": "play the box first:",
    "/problems/unknown-box": "no such box:",
  });
};

const getBoxResults: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/boxes/{code}/results", { params: ON_BOX });
  if (data) {
    for (const result of data) {
      const mode: "blind" | "target" = result.mode;
      const marks = [result.me ? "you" : "", result.owner ? "owner" : ""].join(" ");
      show(result.place, result.name ?? "anonymous", result.score, result.shut, mode, marks);
    }
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/results-hidden": "play the box first:",
    "/problems/unknown-box": "no such box:",
  });
};

const SERIES = { path: { code: "7M3Q-K2ZD2" } };

const createSeries: Step = async (api) => {
  // Elimination at 45 (the sheets' limit), `out_when` the server's default, with Hard.
  const { data, error, response } = await api.POST("/v1/series", {
    body: { format: { kind: "elimination", limit: 45 }, computers: ["hard"], shut_wins: true },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    show("share", data.display_code, data.code, data.status, data.format.kind);
    if (data.format.kind === "elimination") {
      const outWhen: "reached" | "exceeded" = data.format.out_when;
      show(data.format.limit, outWhen);
    }
    if (data.next) {
      show("play round", data.next.round, "on", data.next.dice);
    }
    return;
  }
  await waitOrShow(error, response, ["/problems/solver-busy", "/problems/rate-limited"], {
    "/problems/invalid-request": "fix the request:",
    "/problems/idempotency-key-reused": "a new series needs a new Idempotency-Key:",
  });
};

const joinSeries: Step = async (api) => {
  const { data, error, response } = await api.POST("/v1/series/{code}/players", {
    params: SERIES,
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    show(response.status === 200 ? "already in" : "joined", data.players.length, data.status);
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/series-started": "too late to join:",
    "/problems/series-full": "no free seat:",
    "/problems/unknown-series": "no such series:",
    "/problems/mistyped-code": "a symbol of the code is mistyped:",
  });
};

const getSeries: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/series/{code}", { params: SERIES });
  if (data) {
    for (const seat of data.players) {
      // null: not played, not counted, or not shown before you play that round.
      const rounds: (number | null)[] = seat.rounds;
      show(seat.seat, seat.name ?? seat.computer ?? "anonymous", seat.total, rounds, seat.out);
      show(seat.place ?? "no place yet", seat.id ?? "a computer");
    }
    show(data.rounds_complete, data.winners.map((winner) => winner.seat), data.next?.round);
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/series-hidden": "join the series first:",
    "/problems/unknown-series": "no such series:",
  });
};

const getSeriesInvite: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/series/{code}/invite", { params: SERIES });
  if (data) {
    const status: "open" | "playing" | "finished" = data.status;
    show(data.owner.name ?? "anonymous", data.format.kind, status, data.seats, data.joined);
    for (const seat of data.players) show(seat.name ?? seat.computer ?? "anonymous");
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/unknown-series": "no such series:",
    "/problems/mistyped-code": "a symbol of the code is mistyped:",
  });
};

const listMySeries: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/players/me/series", {
    params: { query: { status: "playing", limit: 10, offset: 0 } },
  });
  if (data) {
    for (const entry of data) {
      const complete: number = entry.rounds_complete;
      show(entry.display_code, entry.format.kind, entry.status, complete);
      show(entry.next_round ?? "no round to play", entry.place ?? "no place yet");
    }
    show("next page at offset", data.length);
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/invalid-request": "check the query:",
    "/problems/unauthorized": "sign in again:",
  });
};

const submitSeriesRun: Step = async (api) => {
  const { data, error, response } = await api.POST("/v1/series/{code}/rounds/{round}/runs", {
    params: { path: { code: "7M3Q-K2ZD2", round: "1" } },
    body: { moves: [[9], [8, 1]] },
    headers: { "Idempotency-Key": idempotencyKey() },
  });
  if (data) {
    const runId: string = data.run_id;
    show(runId, data.score, data.sequence, data.analysis.total_cost, data.series.status);
    if (data.series.next) {
      show("next: round", data.series.next.round, data.series.next.dice);
    }
    return;
  }
  switch (error.type) {
    case "/problems/already-played":
      showRunStands(error, "round");
      break;
    case "/problems/tile-not-open":
    case "/problems/run-ends-early":
      showMoveProblem(error);
      break;
    default:
      await waitOrShow(error, response, ["/problems/solver-busy", "/problems/rate-limited"], {
        "/problems/round-not-reached": "play the rounds before it first:",
        "/problems/out-of-series": "you are out:",
        "/problems/series-finished": "the series is over:",
        "/problems/series-hidden": "join the series first:",
      });
  }
};

// A Solo round's deal (POST /v1/deals): its dice, and the token that brings the full
// analysis and makes one box of the round.
let soloDeal = "";

const deal: Step = async (api) => {
  const { data, error, response } = await api.POST("/v1/deals", { body: { rules: { tiles: 9 } } });
  if (data) {
    soloDeal = data.deal;
    show(data.dice.length, data.rules.tiles, data.expires_at);
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/invalid-request": "fix the rules:",
  });
};

const analyzeRun: Step = async (api) => {
  // A dealt round: the full analysis. Dice of one's own (real dice): no hindsight figures.
  for (const body of [
    { deal: soloDeal, moves: [[9], [8], [7], { tiles: [2] }] },
    {
      dice: [[6, 3], [4, 4], [5, 2], [1, 1], [6, 6], [3, 2], [4, 1], [2, 2], [5, 5], [3, 3]],
      moves: [[9], [8], [7], { tiles: [2] }],
    },
  ]) {
    await analyzeOne(api, body);
  }
};

async function analyzeOne(
  api: ShutboxClient,
  body: RequestBody<"/v1/analyze", "post">,
): Promise<void> {
  const { data, error, response } = await api.POST("/v1/analyze", { body });
  if (data) {
    show(data.score, data.analysis.hindsight, data.analysis.could_be_better ?? "no hindsight");
    show(data.analysis.best_possible ?? "dice of your own: no best possible");
    for (const line of data.analysis.best_line ?? []) {
      show(Array.isArray(line) ? line : line.tiles);
    }
    show(data.computer.hard.moves.length, data.sequence);
    return;
  }
  switch (error.type) {
    case "/problems/tile-not-open":
    case "/problems/wrong-total":
    case "/problems/playable-roll-skipped":
    case "/problems/run-ends-early":
      showMoveProblem(error);
      break;
    default:
      await waitOrShow(error, response, ["/problems/solver-busy", "/problems/rate-limited"], {
        "/problems/bad-deal": "deal the round again:",
        "/problems/deal-expired": "deal the round again:",
        "/problems/invalid-dice": "these dice do not fit the rules:",
      });
  }
}

const hint: Step = async (api) => {
  const { data, error, response } = await api.POST("/v1/hint", {
    body: { open: [1, 2, 3, 4, 5, 6, 7, 8, 9], roll: [3, 4] },
  });
  if (data) {
    show("best:", data.best ?? "nothing to close");
    for (const option of data.options) {
      show(option.tiles, option.p_shut, option.expected_score);
    }
    if (data.dice_choice) {
      show(data.dice_choice.best, data.dice_choice.one.p_shut, data.dice_choice.two.p_shut);
    }
    return;
  }
  await waitOrShow(error, response, ["/problems/solver-busy", "/problems/rate-limited"], {
    "/problems/not-a-tile": "fix the position:",
    "/problems/tile-repeated": "fix the position:",
    "/problems/one-die-not-allowed": "roll two dice:",
  });
};

const moves: Step = async (api) => {
  // Where one die is a must (tiles of 7 and up shut), the one die counts unless `dice` says.
  const { data, error, response } = await legalMoves(api, {
    rules: { one_die: "high_closed", one_die_choice: "mandatory" },
    open: [1, 2, 3],
    roll: [3, 4],
  });
  if (data) {
    const dimmed = [1, 2, 3].filter((tile) => !data.tiles.includes(tile));
    show(data.sets, dimmed, data.one_die_allowed ? "one die allowed" : "two dice");
    return;
  }
  await waitOrShow(error, response, ["/problems/rate-limited"], {
    "/problems/not-a-tile": "fix the position:",
    "/problems/tile-repeated": "fix the position:",
    "/problems/one-die-not-allowed": "roll two dice:",
    "/problems/two-dice-not-allowed": "roll one die:",
  });
};

const solution: Step = async (api) => {
  const { data, error, response } = await api.GET("/v1/solution", {
    params: { query: { tiles: 10, one_die: "sum_le_6", scoring: "sum", open: "1,2,3,10" } },
  });
  if (data) {
    show(data.expected_score, data.p_shut, data.hint_policy.p_shut);
    show("chance of a shut box:", data.distribution["0"] ?? 0);
    return;
  }
  await waitOrShow(error, response, ["/problems/solver-busy", "/problems/rate-limited"], {
    "/problems/not-a-tile": "fix the position:",
    "/problems/tile-repeated": "fix the position:",
  });
};

const listRules: Step = async (api) => {
  const { data } = await api.GET("/v1/rules");
  if (data) {
    show(data.standard);
    for (const field of data.fields) {
      show(field.field, field.description, field.minimum, field.maximum, field.default);
      for (const choice of field.choices ?? []) {
        show(choice.value, choice.description);
      }
    }
  }
};

const everyOperation: EveryOperation = {
  "/healthz": { get: healthz },
  "/readyz": { get: readyz },
  "/v1/players": { post: createPlayer },
  "/v1/players/me": { get: getMe, patch: updateMe },
  "/v1/players/me/streak": { get: getMyStreak },
  "/v1/players/me/today": { get: getMyToday },
  "/v1/players/me/history": { get: getMyHistory },
  "/v1/players/me/stats": { get: getMyStats },
  "/v1/players/me/transfer": { post: offerTransfer },
  "/v1/players/claim": { post: claimTransfer },
  "/v1/daily/{day}": { get: getDailyDice },
  "/v1/daily/{day}/runs": { post: submitDailyRun },
  "/v1/daily/{day}/runs/me": { get: getMyDailyRun },
  "/v1/daily/{day}/leaderboard": { get: getDailyLeaderboard },
  "/v1/daily/{day}/share": { get: getDailyShareText },
  "/v1/daily/{day}/practice": { post: practiseDailyDate },
  "/v1/players/me/practice": { get: getMyPractice },
  "/v1/players/me/friend-code": { get: getMyFriendCode, post: makeFriendCode },
  "/v1/friend-codes/{code}": { get: getFriendCode },
  "/v1/friends": { get: listFriends, post: addFriend },
  "/v1/friends/{friend_id}": { delete: removeFriend },
  "/v1/daily/{day}/friends": { get: getFriendsBoard },
  "/v1/boxes": {
    post: async (api) => {
      await createBox(api);
      await createBoxFromRun(api);
    },
  },
  "/v1/boxes/{code}": { get: getBox },
  "/v1/boxes/{code}/runs": { post: submitBoxRun },
  "/v1/boxes/{code}/runs/me": { get: getMyBoxRun },
  "/v1/boxes/{code}/results": { get: getBoxResults },
  "/v1/series": { post: createSeries },
  "/v1/series/{code}": { get: getSeries },
  "/v1/series/{code}/invite": { get: getSeriesInvite },
  "/v1/players/me/series": { get: listMySeries },
  "/v1/series/{code}/players": { post: joinSeries },
  "/v1/series/{code}/rounds/{round}/runs": { post: submitSeriesRun },
  "/v1/deals": { post: deal },
  "/v1/analyze": { post: analyzeRun },
  "/v1/hint": { post: hint },
  "/v1/moves": { post: moves },
  "/v1/solution": { get: solution },
  "/v1/rules": { get: listRules },
};

export async function main(): Promise<void> {
  const api = createShutboxClient({ baseUrl: "https://shutbox.example", token: newToken() });
  for (const operations of Object.values(everyOperation)) {
    for (const step of Object.values<Step>(operations)) {
      await step(api);
    }
  }
}
