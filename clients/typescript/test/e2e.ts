/**
 * End to end against a live server (`SHUTBOX_BASE_URL`), through the typed client:
 * a Daily Dice, a Friend Box between two players, a Solo round with hints and its
 * analysis, a device transfer. Every step checks the answer and throws on a mismatch;
 * the process exits non-zero on the first failure.
 *
 *     npm run build:e2e && SHUTBOX_BASE_URL=http://127.0.0.1:8000 node build/e2e/test/e2e.js
 *
 * It must compile against the document as it is (`npm run build:e2e` builds only this
 * program and the client): problem members are read with `in`, so that a member the
 * document forgets is still checked against what the server sends.
 */

import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";

import {
  createShutboxClient,
  idempotencyKey,
  legalMoves,
  newToken,
  retryAfter,
  type Move,
  type ShutboxClient,
  type Today,
} from "../src/index.js";

const BASE_URL = process.env["SHUTBOX_BASE_URL"] ?? "";
const REQUEST_TIMEOUT_MS = 60_000;
const RETRIES = 5;
const STANDARD_TILES = [1, 2, 3, 4, 5, 6, 7, 8, 9];
/** The standard rules, every field stated. */
const STANDARD_RULES = { tiles: 9, one_die: "never", move_rule: "any", scoring: "sum" } as const;

type Answer<D, E> =
  | { data: D; error?: never; response: Response }
  | { data?: never; error: E; response: Response };

// --- Checks ---------------------------------------------------------------------------

/** The answer's body, after checking its status. */
function ok<D, E>(answer: Answer<D, E>, what: string, status: number): D {
  const { data, error, response } = answer;
  if (response.status !== status || data === undefined) {
    const body = JSON.stringify(error ?? data);
    throw new Error(`${what}: ${response.status}, expected ${status}: ${body}`);
  }
  return data;
}

/** The problem details of a failed answer, after checking status, type and media type. */
function problem<D, E extends { type: string; status: number; title: string; detail: string }>(
  answer: Answer<D, E>,
  what: string,
  status: number,
  type: string,
): E {
  const { error, response } = answer;
  if (error === undefined) {
    throw new Error(`${what}: ${response.status}, expected ${status} ${type}`);
  }
  assert.equal(response.status, status, `${what}: status (${JSON.stringify(error)})`);
  assert.equal(error.type, type, `${what}: problem type (${error.detail})`);
  assert.equal(error.status, status, `${what}: the problem's status member`);
  assert.ok(error.title.length > 0 && error.detail.length > 0, `${what}: title and detail`);
  const media = response.headers.get("Content-Type") ?? "";
  assert.ok(media.startsWith("application/problem+json"), `${what}: media type ${media}`);
  return error;
}

/**
 * Send a request again while the server answers 429 or 503 (rate limited, solver busy,
 * database down), waiting as `Retry-After` says. A creating request keeps its
 * Idempotency-Key across the attempts (the caller makes it once, outside `send`).
 */
async function call<T extends { response: Response }>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send();
    const status = answer.response.status;
    if ((status !== 429 && status !== 503) || attempt >= RETRIES) {
      return answer;
    }
    const seconds = retryAfter(answer.response) ?? 1;
    await new Promise((resolve) => setTimeout(resolve, Math.min(seconds, 30) * 1000));
  }
}

function client(token?: string): ShutboxClient {
  return createShutboxClient({
    baseUrl: BASE_URL,
    token,
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  });
}

/** A player of their own (the recommended way: the token made on the device). */
async function newPlayer(name: string): Promise<{ api: ShutboxClient; id: string; token: string }> {
  const token = newToken();
  const api = client(token);
  const key = idempotencyKey();
  const created = ok(
    await call(() =>
      api.POST("/v1/players", {
        body: { token, name, time_zone: "UTC" },
        headers: { "Idempotency-Key": key },
      }),
    ),
    "create a player",
    201,
  );
  assert.equal(created.token, token, "the player's token is the client's own");
  assert.equal(created.name, name);
  assert.equal(created.time_zone, "UTC");
  return { api, id: created.id, token };
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

interface Played {
  moves: number[][];
  open: number[];
  score: number;
  /** How many rolls offered more than one set (a different run was possible). */
  choices: number;
}

/**
 * A turn on `dice` under the standard rules, each roll played as `POST /v1/hint`
 * advises (its options being the legal sets `POST /v1/moves` lists); `deviate` (a roll
 * index) takes the hint's second choice there instead.
 */
async function playWithHints(api: ShutboxClient, dice: number[][], deviate = -1): Promise<Played> {
  let open = [...STANDARD_TILES];
  const moves: number[][] = [];
  let choices = 0;
  for (const [index, roll] of dice.entries()) {
    if (open.length === 0) {
      break;
    }
    const hint = ok(
      await call(() => api.POST("/v1/hint", { body: { open, roll } })),
      `hint for roll ${index}`,
      200,
    );
    const legal = ok(
      await call(() => legalMoves(api, { open, roll })),
      `legal moves for roll ${index}`,
      200,
    );
    const ranked = hint.options.map((option) => JSON.stringify(option.tiles)).sort();
    assert.deepEqual(ranked, legal.sets.map((set) => JSON.stringify(set)).sort(), "hints rank the legal sets");
    assert.deepEqual(legal.tiles, [...new Set(legal.sets.flat())].sort((a, b) => a - b), "the tiles of the sets");
    const best = hint.best;
    if (best === null || best.length === 0) {
      assert.equal(hint.options.length, 0, "no best set only when nothing can be closed");
      break; // the roll can't be played: the turn ends on it
    }
    const first = hint.options[0];
    assert.ok(first !== undefined, "the best set is among the options");
    assert.deepEqual(first.tiles, best, "options are ranked: the best first");
    if (hint.options.length > 1) {
      choices += 1;
    }
    const second = hint.options[1];
    const tiles = index === deviate && second !== undefined ? second.tiles : best;
    const sum = tiles.reduce((total, tile) => total + tile, 0);
    assert.equal(sum, (roll[0] ?? 0) + (roll[1] ?? 0), `the set closed on roll ${index}`);
    moves.push(tiles);
    open = open.filter((tile) => !tiles.includes(tile));
  }
  return { moves, open, score: open.reduce((total, tile) => total + tile, 0), choices };
}

/** A legal run other than `played` on the same dice, if the dice allow one. */
async function anotherRun(
  api: ShutboxClient,
  dice: number[][],
  played: Played,
): Promise<Played | undefined> {
  for (let index = 0; index < played.moves.length; index += 1) {
    const other = await playWithHints(api, dice, index);
    if (JSON.stringify(other.moves) !== JSON.stringify(played.moves)) {
      return other;
    }
  }
  return undefined;
}

function sameMembers(actual: unknown, expected: unknown, what: string): void {
  assert.deepEqual(actual, expected, what);
}

// --- Scenarios ------------------------------------------------------------------------

async function service(): Promise<void> {
  const api = client();
  const health = ok(await api.GET("/healthz"), "healthz", 200);
  assert.equal(health.status, "ok");
  const ready = ok(await api.GET("/readyz"), "readyz", 200);
  assert.equal(ready.status, "ready");
  assert.equal(ready.database, "up");
  const catalog = ok(await api.GET("/v1/rules"), "rules", 200);
  assert.deepEqual(
    catalog.fields.map((field) => field.field),
    [
      "tiles",
      "start",
      "one_die",
      "move_rule",
      "scoring",
      "total",
      "one_die_choice",
      "first_must_close",
      "stop_on_total",
    ],
  );
  const solution = ok(await call(() => api.GET("/v1/solution")), "solution", 200);
  const total = Object.values(solution.distribution).reduce((sum, p) => sum + p, 0);
  assert.ok(Math.abs(total - 1) < 1e-9, `the score distribution sums to 1 (${total})`);
  assert.ok(Math.abs(solution.expected_score - 11.1575) < 5e-5, "the standard expected score");
  assert.ok(solution.p_shut > 0 && solution.p_shut < 1);
}

async function dailyDice(): Promise<void> {
  const day = todayUtc(); // the player is in UTC: today's date is open to them
  const alice = await newPlayer("Alice (e2e)");

  // A retry of the creation with the same token finds the same player.
  const again = await call(() =>
    alice.api.POST("/v1/players", {
      body: { token: alice.token, name: "Alice (e2e)", time_zone: "UTC" },
    }),
  );
  assert.equal(ok(again, "create the player again", 200).id, alice.id);

  const me = ok(await call(() => alice.api.GET("/v1/players/me")), "me", 200);
  assert.equal(me.id, alice.id);
  assert.equal(me.streak.current, 0);
  assert.equal(me.streak.last_played, null);

  const path = { path: { day } };
  const feed = await alice.api.GET("/v1/daily/{day}", { params: path });
  const daily = ok(feed, "the Daily Dice", 200);
  assert.equal(daily.date, day);
  assert.equal(daily.dice.length, 10, "tiles + 1 rolls");
  assert.equal(daily.rules.tiles, 9);
  const etag = feed.response.headers.get("ETag");
  assert.ok(etag !== null, "the Daily Dice carry an ETag");
  const cached = await alice.api.GET("/v1/daily/{day}", {
    params: path,
    headers: { "If-None-Match": etag },
  });
  assert.equal(cached.response.status, 304, "the dice held already are current");

  // Before playing: no run, no ranking, and the dice are in play.
  problem(
    await call(() => alice.api.GET("/v1/daily/{day}/runs/me", { params: path })),
    "no run yet",
    404,
    "/problems/no-official-run",
  );
  problem(
    await call(() => alice.api.GET("/v1/daily/{day}/leaderboard", { params: path })),
    "the ranking before playing",
    403,
    "/problems/leaderboard-hidden",
  );
  // The live Daily Dice brought to the analysis: no figure that knows the later rolls.
  const dailyMoves = (await playWithHints(alice.api, daily.dice)).moves;
  const brought = ok(
    await call(() => alice.api.POST("/v1/analyze", { body: { dice: daily.dice, moves: dailyMoves } })),
    "analyse the live Daily Dice as one's own dice",
    200,
  );
  assert.equal(brought.analysis.hindsight, false);
  assert.equal(brought.analysis.best_possible, null);
  assert.equal(brought.analysis.best_line, null);

  // An illegal run is refused with the first offending move, its roll and why.
  const firstRoll = daily.dice[0] ?? [];
  const illegal = await call(() =>
    alice.api.POST("/v1/daily/{day}/runs", { params: path, body: { moves: [[1]] } }),
  );
  const wrong = problem(illegal, "a wrong total", 422, "/problems/wrong-total");
  sameMembers("move_index" in wrong ? wrong.move_index : undefined, 0, "move_index");
  sameMembers("roll" in wrong ? wrong.roll : undefined, firstRoll, "roll");
  sameMembers("dice_used" in wrong ? wrong.dice_used : undefined, 2, "dice_used");
  const reason = "reason" in wrong ? wrong.reason : undefined;
  assert.ok(typeof reason === "string" && reason.length > 0, "reason");

  const played = await playWithHints(alice.api, daily.dice);
  const moves: Move[] = played.moves;
  const key = idempotencyKey();
  const submit = () =>
    alice.api.POST("/v1/daily/{day}/runs", {
      params: path,
      body: { moves },
      headers: { "Idempotency-Key": key },
    });
  const result = ok(await call(submit), "the official run", 201);
  assert.equal(result.score, played.score);
  assert.deepEqual(result.open, played.open);
  assert.equal(result.shut, played.score === 0);
  assert.equal(result.official, true);
  assert.ok(typeof result.run_id === "string" && result.run_id.length > 0, "run_id");
  assert.ok(result.rank !== undefined, "a daily run's 201 has its rank");
  assert.ok(result.streak !== undefined, "a daily run's 201 has the streak");
  assert.ok(result.rank.position >= 1 && result.rank.position <= result.rank.players);
  assert.equal(result.streak.current, 1);
  assert.equal(result.streak.best, 1);
  assert.equal(result.streak.last_played, day);
  const { analysis } = result;
  assert.ok(analysis.hindsight && analysis.best_possible !== null, "the official run's hindsight");
  assert.equal(analysis.total_cost, result.score - analysis.best_possible);
  const costs = analysis.moves.reduce((sum, move) => sum + (move.hindsight_cost ?? NaN), 0);
  assert.equal(costs, analysis.total_cost, "total_cost is the sum of the hindsight costs");
  assert.equal(result.computer.hard.score >= analysis.best_possible, true);

  // The same key and body: the first answer again. The identical run without a key: 200.
  const replay = ok(await call(submit), "the same Idempotency-Key again", 201);
  assert.deepEqual(replay, result);
  const identical = await call(() =>
    alice.api.POST("/v1/daily/{day}/runs", { params: path, body: { moves } }),
  );
  assert.deepEqual(ok(identical, "the identical run again", 200), result);
  const reused = await call(() =>
    alice.api.POST("/v1/daily/{day}/runs", {
      params: path,
      body: { moves: [...moves, [1]] },
      headers: { "Idempotency-Key": key },
    }),
  );
  problem(reused, "the key with another body", 422, "/problems/idempotency-key-reused");

  // Another legal run of a played date: 409, pointing at the official run.
  const other = await anotherRun(alice.api, daily.dice, played);
  if (other === undefined) {
    console.log("  (these dice allow one run only: no second run to refuse)");
  } else {
    const conflict = await call(() =>
      alice.api.POST("/v1/daily/{day}/runs", { params: path, body: { moves: other.moves } }),
    );
    const stands = problem(conflict, "another run", 409, "/problems/already-played");
    sameMembers(
      "official_run_id" in stands ? stands.official_run_id : undefined,
      result.run_id,
      "official_run_id",
    );
    sameMembers(
      "official_run" in stands ? stands.official_run : undefined,
      `/v1/daily/${day}/runs/me`,
      "official_run",
    );
  }

  const mine = ok(
    await call(() => alice.api.GET("/v1/daily/{day}/runs/me", { params: path })),
    "the official run again",
    200,
  );
  assert.equal(mine.run_id, result.run_id);
  assert.equal(mine.score, result.score);
  assert.ok(mine.rank !== undefined, "runs/me has the rank as it stands now");
  assert.ok(mine.rank.position >= 1);

  const share = ok(
    await call(() => alice.api.GET("/v1/daily/{day}/share", { params: path })),
    "share",
    200,
  );
  // The date as English writes it (the client sends no Accept-Language: English).
  const longDate = new Date(`${day}T00:00:00Z`).toLocaleDateString("en-US", {
    year: "numeric",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
  });
  assert.ok(share.text.includes(longDate), "the share text names the date");
  const outcome = result.shut ? "Shut the box" : `Score ${result.score}`;
  assert.ok(share.text.includes(outcome), `the share text says "${outcome}"`);
  assert.ok(!share.text.includes(JSON.stringify(daily.dice[0])), "no dice in the share text");

  const board = ok(
    await call(() =>
      alice.api.GET("/v1/daily/{day}/leaderboard", {
        params: { path: { day }, query: { limit: 100 } },
      }),
    ),
    "the leaderboard",
    200,
  );
  assert.equal(board.date, day);
  assert.ok(board.players >= 1);
  assert.ok((board.histogram[String(result.score)] ?? 0) >= 1, "the run is in the histogram");
  assert.equal(board.best_possible, analysis.best_possible);
  if (board.players <= 100) {
    assert.ok(board.top.some((entry) => entry.name === "Alice (e2e)" && entry.score === result.score));
  }

  const history = ok(
    await call(() => alice.api.GET("/v1/players/me/history", { params: { query: { limit: 5 } } })),
    "history",
    200,
  );
  const latest = history[0];
  assert.ok(latest !== undefined, "the history has the run");
  assert.equal(latest.date, day);
  assert.equal(latest.score, result.score);
  assert.equal(latest.shut, result.shut);
  assert.equal(latest.frozen, false);
  assert.ok(latest.rank !== undefined && latest.rank.position >= 1);

  const streak = ok(await call(() => alice.api.GET("/v1/players/me/streak")), "streak", 200);
  assert.equal(streak.current, 1);
  assert.equal(streak.last_played, day);
  assert.equal(streak.freezes, 0);
  assert.deepEqual(streak.weekly, { current: 1, best: 1 });
  const today: Today = ok(await call(() => alice.api.GET("/v1/players/me/today")), "today", 200);
  assert.equal(today.date, day);
  assert.ok(Date.parse(today.closes_at) > Date.now(), `today closes later: ${today.closes_at}`);
  assert.equal(today.played, true);
  assert.equal(today.at_risk, false);
  assert.deepEqual(today.streak, streak);
  if (todayUtc() === day) {
    assert.equal(streak.played_today, true);
  }
}

async function friendBox(): Promise<void> {
  const owner = await newPlayer("Olive (e2e)");
  const friend = await newPlayer("Frank (e2e)");

  const boxKey = idempotencyKey();
  const created = ok(
    await call(() =>
      owner.api.POST("/v1/boxes", { body: {}, headers: { "Idempotency-Key": boxKey } }),
    ),
    "create a box",
    201,
  );
  assert.equal(created.owner.name, "Olive (e2e)");
  assert.equal(created.dice.length, 10);
  assert.equal(created.rules.tiles, 9);
  assert.equal(created.code.replace(/[^0-9A-Z]/g, ""), created.display_code.replace(/-/g, ""));

  // The box's dice brought to the analysis: no figure that knows the later rolls.
  const boxMoves = (await playWithHints(owner.api, created.dice)).moves;
  const boxDice = ok(
    await call(() => owner.api.POST("/v1/analyze", { body: { dice: created.dice, moves: boxMoves } })),
    "analyse a box's dice as one's own",
    200,
  );
  assert.equal(boxDice.analysis.hindsight, false);
  assert.equal(boxDice.analysis.total_cost, null);

  // The owner plays it like anyone else.
  const ownerPlay = await playWithHints(owner.api, created.dice);
  const code = { path: { code: created.code } };
  const ownerRun = ok(
    await call(() =>
      owner.api.POST("/v1/boxes/{code}/runs", {
        params: code,
        body: { moves: ownerPlay.moves, mode: "blind" },
        headers: { "Idempotency-Key": idempotencyKey() },
      }),
    ),
    "the owner's run",
    201,
  );
  assert.equal(ownerRun.score, ownerPlay.score);
  assert.equal(ownerRun.versus, undefined, "no versus for the owner");
  assert.ok(typeof ownerRun.run_id === "string", "run_id");

  // The friend: results hidden before playing; the box opened by its code as typed.
  problem(
    await call(() => friend.api.GET("/v1/boxes/{code}/results", { params: code })),
    "results before playing",
    403,
    "/problems/results-hidden",
  );
  const typed = created.display_code.toLowerCase().replace("-", " - ");
  const blind = ok(
    await call(() =>
      friend.api.GET("/v1/boxes/{code}", { params: { path: { code: typed } } }),
    ),
    "open the box by its code",
    200,
  );
  assert.equal(blind.code, created.code);
  assert.deepEqual(blind.dice, created.dice);
  assert.equal(blind.players, 1);
  assert.equal(blind.owner.name, "Olive (e2e)");
  assert.equal(blind.target, undefined, "blind: nothing of the owner's result");
  const first = created.code.charAt(0);
  const mistyped = (first === "0" ? "1" : "0") + created.code.slice(1);
  problem(
    await call(() => friend.api.GET("/v1/boxes/{code}", { params: { path: { code: mistyped } } })),
    "a mistyped code",
    400,
    "/problems/mistyped-code",
  );

  const friendPlay = await playWithHints(friend.api, blind.dice);
  const friendRun = ok(
    await call(() =>
      friend.api.POST("/v1/boxes/{code}/runs", {
        params: code,
        body: { moves: friendPlay.moves, mode: "blind" },
      }),
    ),
    "the friend's run",
    201,
  );
  assert.ok(friendRun.versus !== undefined, "versus the owner, who has played");
  assert.equal(friendRun.versus.owner_score, ownerRun.score);
  const expected =
    friendRun.score < ownerRun.score ? "win" : friendRun.score === ownerRun.score ? "tie" : "loss";
  assert.equal(friendRun.versus.outcome, expected);

  const results = ok(
    await call(() => friend.api.GET("/v1/boxes/{code}/results", { params: code })),
    "the box's results",
    200,
  );
  assert.deepEqual(results.map((r) => r.name).sort(), ["Frank (e2e)", "Olive (e2e)"]);
  assert.ok(results.every((r, i) => i === 0 || (results[i - 1]?.score ?? 0) <= r.score), "best first");
  assert.ok(results.every((r) => r.mode === "blind"));

  // One run per player per box.
  const other = await anotherRun(owner.api, created.dice, ownerPlay);
  if (other !== undefined) {
    const conflict = await call(() =>
      owner.api.POST("/v1/boxes/{code}/runs", {
        params: code,
        body: { moves: other.moves, mode: "blind" },
      }),
    );
    const stands = problem(conflict, "a second run of the box", 409, "/problems/already-played");
    sameMembers(
      "official_run_id" in stands ? stands.official_run_id : undefined,
      ownerRun.run_id,
      "official_run_id",
    );
  }

  // Target mode shows the owner's final position to a signed-in player.
  const third = await newPlayer("Tess (e2e)");
  const target = ok(
    await call(() =>
      third.api.GET("/v1/boxes/{code}", { params: { ...code, query: { mode: "target" } } }),
    ),
    "the box in target mode",
    200,
  );
  assert.ok(target.target !== undefined, "the owner's result as the target");
  assert.equal(target.target.score, ownerRun.score);
  assert.deepEqual(target.target.open, ownerRun.open);
  assert.equal(target.players, 2);
}

async function soloWithHints(): Promise<void> {
  const api = client(); // stateless: no account needed
  const dealt = ok(await call(() => api.POST("/v1/deals", { body: {} })), "deal a Solo round", 201);
  const { dice } = dealt;
  const played = await playWithHints(api, dice);

  const analysed = ok(
    await call(() => api.POST("/v1/analyze", { body: { deal: dealt.deal, moves: played.moves } })),
    "analyse a Solo round",
    200,
  );
  assert.equal(analysed.score, played.score);
  assert.deepEqual(analysed.dice, dice);
  assert.ok(!("run_id" in analysed), "nothing stored: no run_id");
  assert.ok(!("official" in analysed), "nothing stored: not official");
  const { analysis } = analysed;
  assert.ok(analysis.hindsight && analysis.best_possible !== null, "a deal's hindsight");
  assert.equal(analysis.total_cost, analysed.score - analysis.best_possible);
  assert.equal(
    analysis.moves.reduce((sum, move) => sum + (move.hindsight_cost ?? NaN), 0),
    analysis.total_cost,
  );
  // Hints rank by shut chance; the labels grade by expected score: they may differ.
  for (const [index, move] of analysis.moves.entries()) {
    assert.equal(move.index, index);
    assert.deepEqual(move.roll, dice[index], `the roll of move ${index}`);
    assert.ok(
      move.expected_loss >= 0 && (move.hindsight_cost ?? -1) >= 0,
      `the costs of move ${index}`,
    );
  }
  assert.deepEqual(
    analysis.moves.filter((move) => move.chosen.length > 0).map((move) => move.chosen),
    played.moves,
    "the analysis is of the moves played",
  );
  for (const level of ["easy", "medium", "hard"] as const) {
    assert.ok(analysed.computer[level].score >= analysis.best_possible, level);
  }

  // A playable roll left empty is refused, with the sets it could have closed.
  const skipped = await call(() => api.POST("/v1/analyze", { body: { dice, moves: [[]] } }));
  const refused = problem(skipped, "a skipped roll", 422, "/problems/playable-roll-skipped");
  sameMembers("move_index" in refused ? refused.move_index : undefined, 0, "move_index");
  sameMembers("roll" in refused ? refused.roll : undefined, dice[0], "roll");
  const possible = "possible" in refused ? refused.possible : undefined;
  assert.ok(Array.isArray(possible) && possible.length > 0, "possible sets");

  // Where one die may be rolled, the hint without a roll says how many dice to roll.
  const choice = ok(
    await call(() =>
      api.POST("/v1/hint", { body: { open: [1, 2], rules: { ...STANDARD_RULES, one_die: "sum_le_6" } } }),
    ),
    "how many dice to roll",
    200,
  );
  assert.ok(choice.dice_choice !== undefined && choice.dice_choice !== null, "dice_choice");
  assert.ok(choice.dice_choice.best === 1 || choice.dice_choice.best === 2);
}

async function deviceTransfer(): Promise<void> {
  const old = await newPlayer("Dora (e2e)");
  const offered = ok(
    await call(() => old.api.POST("/v1/players/me/transfer")),
    "a transfer code",
    201,
  );
  assert.match(offered.display_code, /^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{5}$/);
  const minutes = (Date.parse(offered.expires_at) - Date.now()) / 60_000;
  assert.ok(minutes > 14 && minutes <= 15.5, `valid 15 minutes (${minutes.toFixed(1)})`);

  const anonymous = client();
  const first = offered.code.charAt(0);
  const mistyped = (first === "0" ? "1" : "0") + offered.code.slice(1);
  problem(
    await call(() => anonymous.POST("/v1/players/claim", { body: { code: mistyped } })),
    "a mistyped transfer code",
    400,
    "/problems/mistyped-code",
  );

  // The new device claims the code with a token of its own.
  const token = newToken();
  const claimed = ok(
    await call(() =>
      anonymous.POST("/v1/players/claim", { body: { code: offered.display_code, token } }),
    ),
    "claim the code",
    200,
  );
  assert.equal(claimed.id, old.id);
  assert.equal(claimed.name, "Dora (e2e)");
  assert.equal(claimed.token, token);

  const device = client(token);
  const me = ok(await call(() => device.GET("/v1/players/me")), "me on the new device", 200);
  assert.equal(me.id, old.id);
  const gone = await call(() => old.api.GET("/v1/players/me"));
  problem(gone, "the old token", 401, "/problems/unauthorized");
  assert.equal(gone.response.headers.get("WWW-Authenticate"), "Bearer");

  // The same claim again (a lost answer) finds the player; another token can't spend it.
  const retried = await call(() =>
    anonymous.POST("/v1/players/claim", { body: { code: offered.code, token } }),
  );
  assert.equal(ok(retried, "the same claim again", 200).id, old.id);
  problem(
    await call(() =>
      anonymous.POST("/v1/players/claim", { body: { code: offered.code, token: newToken() } }),
    ),
    "a spent code",
    404,
    "/problems/unknown-transfer-code",
  );

  // The time zone changes once in 24 hours.
  const moved = ok(
    await call(() => device.PATCH("/v1/players/me", { body: { time_zone: "Europe/Oslo" } })),
    "change the time zone",
    200,
  );
  assert.equal(moved.time_zone, "Europe/Oslo");
  const soon = await call(() =>
    device.PATCH("/v1/players/me", { body: { time_zone: "America/Chicago" } }),
  );
  const tooSoon = problem(soon, "a second change", 409, "/problems/time-zone-change-too-soon");
  const possibleAt = "possible_at" in tooSoon ? tooSoon.possible_at : undefined;
  assert.ok(typeof possibleAt === "string" && Date.parse(possibleAt) > Date.now(), "possible_at");
}

// --- Main -----------------------------------------------------------------------------

const SCENARIOS: [string, () => Promise<void>][] = [
  ["service", service],
  ["Daily Dice", dailyDice],
  ["Friend Box", friendBox],
  ["Solo with hints", soloWithHints],
  ["device transfer", deviceTransfer],
];

async function main(): Promise<void> {
  if (BASE_URL === "") {
    throw new Error("set SHUTBOX_BASE_URL to the server to test, e.g. http://127.0.0.1:8000");
  }
  for (const [name, scenario] of SCENARIOS) {
    const started = performance.now();
    await scenario();
    console.log(`ok ${name} (${Math.round(performance.now() - started)} ms)`);
  }
}

main().catch((error: unknown) => {
  console.error("FAILED:", error);
  process.exitCode = 1;
});
