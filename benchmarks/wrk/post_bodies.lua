-- POST JSON bodies in turn, one body per line of the file named after `--`:
--
--     wrk -s benchmarks/wrk/post_bodies.lua http://127.0.0.1:8000/v1/analyze -- bodies.jsonl
--
-- Every wrk thread has its own Lua state: each reads the file once, formats every
-- request up front, and starts at its own offset so the threads do not move in step.

local requests = {}
local index = 0
local thread_number = 0

function setup(thread)
  thread:set("offset", thread_number)
  thread_number = thread_number + 1
end

function init(args)
  local path = args[1]
  if path == nil then
    error("post_bodies.lua: pass the bodies file after --")
  end
  local headers = { ["Content-Type"] = "application/json" }
  for line in io.lines(path) do
    if line ~= "" then
      requests[#requests + 1] = wrk.format("POST", nil, headers, line)
    end
  end
  if #requests == 0 then
    error("post_bodies.lua: no bodies in " .. path)
  end
  index = (offset or 0) % #requests
end

function request()
  index = index % #requests + 1
  return requests[index]
end
