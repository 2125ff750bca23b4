-- cycles -- reference cycles built and dropped (the algorithm of
-- cycles.gcl).  A ring node is an array table {id, next, prev}.
-- Usage: lua5.4 cycles.lua [n]   (default 200000 rings)

local function makeRing(size, firstId)
  local head = { firstId, false, false }
  local tail = head
  for k = 1, size - 1 do
    local node = { firstId + k, false, tail }
    tail[2] = node
    tail = node
  end
  tail[2] = head
  head[3] = tail
  return head
end

local n = math.floor(tonumber(arg[1]) or 200000)
local total, nodes = 0, 0
for r = 0, n - 1 do
  local size = 10 + r % 90
  local ring = makeRing(size, r)
  local forward = 0
  local p = ring
  for _ = 1, size do
    forward = forward + p[1]
    p = p[2]
  end
  local backward = 0
  for _ = 1, size do
    p = p[3]
    backward = backward + p[1]
  end
  if forward ~= backward then io.write(string.format("mismatch in ring %d\n", r)) end
  total = total + forward
  nodes = nodes + size
end
io.write(string.format("rings: %d, nodes: %d, total %d\n", n, nodes, total))
