-- POST JSON bodies, each request as a new player: every request carries the next
-- unused bearer token, and no token is ever sent twice.
--
--     wrk -s benchmarks/wrk/new_player_runs.lua URL -- TOKENS BODIES THREADS [RATE]
--
-- TOKENS: one token a line; BODIES: one JSON body a line, sent in turn (each thread's
-- n-th request sends line n, round and round); THREADS: wrk's --threads
-- (each thread takes its own tokens: lines i, i + THREADS, i + 2 * THREADS, ... of the
-- file for thread i); RATE: requests per second in all, 0 or absent for as fast as wrk can.
--
-- Paced (RATE > 0), each thread keeps a schedule of its own, RATE / THREADS requests a
-- second at fixed intervals from its first request: delay() hands each connection ready
-- to send the next slot of that schedule (open loop while a connection is free; a slot
-- already past is sent at once, and how far behind the schedule a send was is reported).
--
-- A thread out of tokens stops (its connections fall silent) and is counted; it never
-- reuses a token. done() prints, after wrk's summary, the responses by status, the
-- tokens handed out, the threads that ran out and the largest lag behind the schedule:
--
--     new_player_runs: statuses 201:12345 409:2
--     new_player_runs: tokens 12400 of 60000, threads out of tokens 0, behind schedule max 0.0 ms

local ffi = require("ffi")
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } new_player_runs_timespec;
int clock_gettime(int clock_id, new_player_runs_timespec *now);
]])
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("new_player_runs_timespec")

local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

-- The main state: one entry per thread, read back in done().
local threads = {}

function setup(thread)
  thread:set("thread_id", #threads)
  threads[#threads + 1] = thread
end

-- Each thread's state (globals, so that done() can read them with thread:get()).
tokens = {}
next_token = 1
statuses = {}
exhausted = 0
lagged_ms = 0.0
tokens_in_file = 0

local bodies = {}
local interval_ms = 0.0
local next_slot_ms = nil
local phase_ms = 0.0

function init(args)
  local tokens_path, bodies_path, thread_count = args[1], args[2], tonumber(args[3])
  local rate = tonumber(args[4] or "0")
  if tokens_path == nil or bodies_path == nil or thread_count == nil or rate == nil then
    error("new_player_runs.lua: pass TOKENS BODIES THREADS [RATE] after --")
  end
  local id = thread_id or 0
  local line_number = 0
  for line in io.lines(tokens_path) do
    if line ~= "" then
      if line_number % thread_count == id then
        tokens[#tokens + 1] = line
      end
      line_number = line_number + 1
    end
  end
  tokens_in_file = line_number
  for line in io.lines(bodies_path) do
    if line ~= "" then
      bodies[#bodies + 1] = line
    end
  end
  if #bodies == 0 then
    error("new_player_runs.lua: no body in " .. bodies_path)
  end
  if rate > 0 then
    interval_ms = 1000.0 * thread_count / rate
    -- The threads' schedules interleave instead of firing together.
    phase_ms = interval_ms * id / thread_count
  end
end

local function format(token, body)
  local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
  }
  return wrk.format("POST", nil, headers, body)
end

function request()
  local token = tokens[next_token]
  if token == nil then
    -- Out of tokens: stop this thread rather than send a token twice. The stop takes
    -- effect when this callback returns, so what goes out now carries no valid token
    -- (and would be counted as a 401 should its answer ever be read).
    if exhausted == 0 then
      exhausted = 1
      wrk.thread:stop()
    end
    return format("exhausted", bodies[1])
  end
  local body = bodies[(next_token - 1) % #bodies + 1]
  next_token = next_token + 1
  return format(token, body)
end

function delay()
  if interval_ms <= 0 then
    return 0
  end
  local now = now_ms()
  if next_slot_ms == nil then
    next_slot_ms = now + phase_ms
  end
  local slot = next_slot_ms
  next_slot_ms = slot + interval_ms
  if slot <= now then
    if now - slot > lagged_ms then
      lagged_ms = now - slot
    end
    return 0
  end
  -- wrk waits whole milliseconds: at most 1 ms early, never drifting (the schedule is
  -- absolute).
  return math.floor(slot - now)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local by_status = {}
  local handed_out, out_of_tokens, lag, in_file = 0, 0, 0.0, 0
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      by_status[status] = (by_status[status] or 0) + count
    end
    handed_out = handed_out + thread:get("next_token") - 1
    out_of_tokens = out_of_tokens + thread:get("exhausted")
    lag = math.max(lag, thread:get("lagged_ms"))
    in_file = thread:get("tokens_in_file")
  end
  local codes = {}
  for status in pairs(by_status) do
    codes[#codes + 1] = status
  end
  table.sort(codes)
  local parts = {}
  for _, status in ipairs(codes) do
    parts[#parts + 1] = string.format("%d:%d", status, by_status[status])
  end
  io.write("new_player_runs: statuses ", table.concat(parts, " "), "\n")
  io.write(
    string.format(
      "new_player_runs: tokens %d of %d, threads out of tokens %d, behind schedule max %.1f ms\n",
      handed_out, in_file, out_of_tokens, lag
    )
  )
end
