-- loop -- a tight integer loop in a function (the algorithm of loop.gcl).
-- Usage: lua5.4 loop.lua [n]   (default 100000000 iterations)

local function loop(n)
  local acc = 0
  for i = 0, n - 1 do
    acc = (acc * 31 + i) % 1000003
    acc = acc + i % 16
  end
  return acc
end

local n = math.floor(tonumber(arg[1]) or 100000000)
io.write(string.format("loop(%d) = %d\n", n, loop(n)))
