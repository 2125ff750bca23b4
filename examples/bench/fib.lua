-- fib -- naive doubly recursive Fibonacci (the algorithm of fib.gcl).
-- Usage: lua5.4 fib.lua [n]   (default 37)

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local n = math.floor(tonumber(arg[1]) or 37)
io.write(string.format("fib(%d) = %d\n", n, fib(n)))
