-- gcbench -- Hans Boehm's GCBench (the algorithm and scale of gcbench.gcl,
-- which describes both).  A node is an array table {left, right, i, j}.
-- Runs under lua5.4 and LuaJIT (Lua 5.1: no integer operators).
-- Usage: lua5.4 gcbench.lua [maxDepth [arraySize]]   (default 16 500000)

local floor = math.floor

local function newNode()
  return { false, false, 0, 0 }
end

local stretchDepth

local function treeSize(depth) return floor(2 ^ (depth + 1)) - 1 end

local function numIters(depth) return floor(2 * treeSize(stretchDepth) / treeSize(depth)) end

-- Gives `node` two children, recursively, down to `depth` levels.
local function populate(depth, node)
  if depth <= 0 then return end
  local left, right = newNode(), newNode()
  node[1], node[2] = left, right
  populate(depth - 1, left)
  populate(depth - 1, right)
end

-- Builds the children first, then their parent.
local function makeTree(depth)
  if depth <= 0 then return newNode() end
  local left = makeTree(depth - 1)
  local right = makeTree(depth - 1)
  return { left, right, 0, 0 }
end

local function count(node)
  if not node then return 0 end
  return 1 + count(node[1]) + count(node[2])
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
  io.write(string.format("Creating %d trees of depth %d: top-down %d nodes, bottom-up %d nodes\n",
    iterations, depth, topDown, count(tree)))
end

local minDepth = 4
local maxDepth = floor(tonumber(arg[1]) or 16)
stretchDepth = maxDepth + 2
local longLivedDepth = maxDepth
local arraySize = floor(tonumber(arg[2]) or 500000)

print("Garbage Collector Test")
io.write(string.format(" Stretching memory with a binary tree of depth %d: %d nodes\n",
  stretchDepth, count(makeTree(stretchDepth))))

io.write(string.format(" Creating a long-lived binary tree of depth %d\n", longLivedDepth))
local longLived = newNode()
populate(longLivedDepth, longLived)

io.write(string.format(" Creating a long-lived array of %d doubles\n", arraySize))
local array = {}   -- Lua arrays start at 1: array[k + 1] holds element k
for k = 1, arraySize do array[k] = 0.0 end
for k = 1, floor(arraySize / 2) - 1 do array[k + 1] = 1.0 / k end

for depth = minDepth, maxDepth, 2 do timeConstruction(depth) end

if not longLived or array[1001] ~= 1.0 / 1000 then
  print("Failed")
else
  io.write(string.format(" Long-lived tree: %d nodes; array[1000] = %.14g\n", count(longLived), array[1001]))
end
