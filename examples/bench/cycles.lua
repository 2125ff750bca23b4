-- cycles -- reference cycles built and dropped (same algorithm as cycles.gcl).
-- Usage: lua5.4 cycles.lua [n]   (default 200000 rings)

local function makeRing(size, firstId)
  local head = { id = firstId, next = false, prev = false }
  local tail = head
  for k = 1, size - 1 do
    local node = { id = firstId + k, next = false, prev = tail }
    tail.next = node
    tail = node
  end
  tail.next = head
  head.prev = tail
  return head
end

local n = tonumber(arg[1]) or 200000
local total, nodes = 0, 0
for r = 0, n - 1 do
  local size = 10 + r % 90
  local ring = makeRing(size, r)
  local forward = 0
  local p = ring
  for _ = 1, size do
    forward = forward + p.id
    p = p.next
  end
  local backward = 0
  for _ = 1, size do
    p = p.prev
    backward = backward + p.id
  end
  if forward ~= backward then print("mismatch in ring " .. r) end
  total = total + forward
  nodes = nodes + size
end
print(string.format("rings: %d, nodes: %d, total %d", n, nodes, total))
