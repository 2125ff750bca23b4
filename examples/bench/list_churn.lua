-- list_churn -- mostly short-lived lists, a few kept alive for a while
-- (same algorithm as list_churn.gcl).
-- Usage: lua5.4 list_churn.lua [n]   (default 1000000 lists)

local function makeList(length, seed)
  local head = false
  for k = 0, length - 1 do
    head = { value = seed + k, next = head }
  end
  return head
end

local function sumList(list)
  local total = 0
  local c = list
  while c do
    total = total + c.value
    c = c.next
  end
  return total
end

local n = tonumber(arg[1]) or 1000000
local survivors = {}
for s = 1, 128 do survivors[s] = false end
local total = 0
for i = 0, n - 1 do
  local list = makeList(1 + i % 32, i)
  total = total + sumList(list)
  if i % 100 == 0 then survivors[(i // 100) % 128 + 1] = list end
end

local kept, keptTotal = 0, 0
for s = 1, 128 do
  if survivors[s] then
    kept = kept + 1
    keptTotal = keptTotal + sumList(survivors[s])
  end
end
print(string.format("lists: %d, total %d", n, total))
print(string.format("survivors: %d, total %d", kept, keptTotal))
