-- list_churn -- mostly short-lived lists, a few kept alive for a while (the
-- algorithm of list_churn.gcl).  A cell is an array table {value, next}.
-- Runs under lua5.4 and LuaJIT (Lua 5.1: no integer operators).
-- Usage: lua5.4 list_churn.lua [n]   (default 1000000 lists)

local floor = math.floor

local function makeList(length, seed)
  local head = false
  for k = 0, length - 1 do
    head = { seed + k, head }
  end
  return head
end

local function sumList(cell)
  local total = 0
  while cell do
    total = total + cell[1]
    cell = cell[2]
  end
  return total
end

local n = floor(tonumber(arg[1]) or 1000000)
local survivors = {}
for s = 1, 128 do survivors[s] = false end
local total = 0
for i = 0, n - 1 do
  local list = makeList(1 + i % 32, i)
  total = total + sumList(list)
  if i % 100 == 0 then survivors[floor(i / 100) % 128 + 1] = list end
end

local kept, keptTotal = 0, 0
for s = 1, 128 do
  if survivors[s] then
    kept = kept + 1
    keptTotal = keptTotal + sumList(survivors[s])
  end
end
io.write(string.format("lists: %d, total %d\n", n, total))
io.write(string.format("survivors: %d, total %d\n", kept, keptTotal))
