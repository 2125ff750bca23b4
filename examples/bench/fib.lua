-- fib -- naive doubly recursive Fibonacci (same algorithm as fib.gcl).
-- Usage: lua5.4 fib.lua [n]   (default 37)

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local n = tonumber(arg[1]) or 37
print(string.format("fib(%d) = %d", n, fib(n)))
