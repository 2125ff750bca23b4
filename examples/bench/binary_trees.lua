-- binary_trees -- Benchmarks Game binary-trees (same algorithm as binary_trees.gcl).
-- Usage: lua5.4 binary_trees.lua [maxDepth]   (default 16)

local function make(depth)
  local t = { left = false, right = false }
  if depth > 0 then
    t.left = make(depth - 1)
    t.right = make(depth - 1)
  end
  return t
end

local function check(t)
  if not t.left then return 1 end
  return 1 + check(t.left) + check(t.right)
end

local minDepth = 4
local maxDepth = tonumber(arg[1]) or 16
if maxDepth < minDepth + 2 then maxDepth = minDepth + 2 end

local stretchDepth = maxDepth + 1
print(string.format("stretch tree of depth %d\t check: %d", stretchDepth, check(make(stretchDepth))))

local longLived = make(maxDepth)
for depth = minDepth, maxDepth, 2 do
  local iterations = 1 << (maxDepth - depth + minDepth)
  local sum = 0
  for _ = 1, iterations do sum = sum + check(make(depth)) end
  print(string.format("%d\t trees of depth %d\t check: %d", iterations, depth, sum))
end
print(string.format("long lived tree of depth %d\t check: %d", maxDepth, check(longLived)))
