-- gcbench -- Hans Boehm's GCBench (same algorithm as gcbench.gcl).
-- Usage: lua5.4 gcbench.lua [maxDepth [arraySize]]   (default 16 and 500000)

local function newNode(left, right)
  return { left = left or false, right = right or false, i = 0, j = 0 }
end

local stretchDepth

local function treeSize(depth) return (1 << (depth + 1)) - 1 end

local function numIters(depth) return 2 * treeSize(stretchDepth) // treeSize(depth) end

local function populate(depth, node)
  if depth <= 0 then return end
  node.left = newNode()
  node.right = newNode()
  populate(depth - 1, node.left)
  populate(depth - 1, node.right)
end

local function makeTree(depth)
  if depth <= 0 then return newNode() end
  local left = makeTree(depth - 1)
  local right = makeTree(depth - 1)
  return newNode(left, right)
end

local function count(node)
  if not node then return 0 end
  return 1 + count(node.left) + count(node.right)
end

local function timeConstruction(depth)
  local iterations = numIters(depth)
  local tree
  for _ = 1, iterations do
    tree = newNode()
    populate(depth, tree)
  end
  local topDown = count(tree)
  for _ = 1, iterations do tree = makeTree(depth) end
  print(string.format("Creating %d trees of depth %d: top-down %d nodes, bottom-up %d nodes",
    iterations, depth, topDown, count(tree)))
end

local minDepth = 4
local maxDepth = tonumber(arg[1]) or 16
stretchDepth = maxDepth + 2
local longLivedDepth = maxDepth
local arraySize = tonumber(arg[2]) or 500000

print("Garbage Collector Test")
print(string.format(" Stretching memory with a binary tree of depth %d: %d nodes",
  stretchDepth, count(makeTree(stretchDepth))))

print(string.format(" Creating a long-lived binary tree of depth %d", longLivedDepth))
local longLived = newNode()
populate(longLivedDepth, longLived)

print(string.format(" Creating a long-lived array of %d doubles", arraySize))
local array = {}
for k = 1, arraySize do array[k] = 0.0 end   -- Lua arrays start at 1: array[k + 1] holds element k
for k = 1, arraySize // 2 - 1 do array[k + 1] = 1.0 / k end

for depth = minDepth, maxDepth, 2 do timeConstruction(depth) end

if not longLived or array[1001] ~= 1.0 / 1000 then
  print("Failed")
else
  print(string.format(" Long-lived tree: %d nodes; array[1000] = %.14g", count(longLived), array[1001]))
end
