-- loop -- a tight integer arithmetic loop (same algorithm as loop.gcl).
-- Usage: lua5.4 loop.lua [n]   (default 100000000 iterations)

local n = tonumber(arg[1]) or 100000000
local acc = 0
for i = 0, n - 1 do
  acc = (acc * 31 + i) % 1000003
  acc = acc + (i & 15)
end
print(string.format("loop(%d) = %d", n, acc))
