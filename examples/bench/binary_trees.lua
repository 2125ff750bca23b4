-- binary_trees -- the Benchmarks Game's binary-trees (the algorithm of
-- binary_trees.gcl).  A node is an array table {left, right}, the leaves
-- {} (as the Benchmarks Game's Lua programs write it).  Runs under lua5.4
-- and LuaJIT (Lua 5.1: no integer operators, so 2^k and math.floor).
-- Usage: lua5.4 binary_trees.lua [maxDepth]   (default 16)

local floor = math.floor

local function bottomUp(depth)
  if depth <= 0 then return {} end
  local left = bottomUp(depth - 1)
  local right = bottomUp(depth - 1)
  return { left, right }
end

local function check(tree)
  local left = tree[1]
  if not left then return 1 end
  return 1 + check(left) + check(tree[2])
end

local minDepth = 4
local maxDepth = floor(tonumber(arg[1]) or 16)
if maxDepth < minDepth + 2 then maxDepth = minDepth + 2 end

local stretchDepth = maxDepth + 1
io.write(string.format("stretch tree of depth %d\t check: %d\n", stretchDepth, check(bottomUp(stretchDepth))))

local longLived = bottomUp(maxDepth)
for depth = minDepth, maxDepth, 2 do
  local iterations = floor(2 ^ (maxDepth - depth + minDepth))
  local sum = 0
  for _ = 1, iterations do sum = sum + check(bottomUp(depth)) end
  io.write(string.format("%d\t trees of depth %d\t check: %d\n", iterations, depth, sum))
end
io.write(string.format("long lived tree of depth %d\t check: %d\n", maxDepth, check(longLived)))
