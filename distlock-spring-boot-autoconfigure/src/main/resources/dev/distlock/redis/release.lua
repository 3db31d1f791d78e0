-- Releases a lock if, and only if, the caller still holds it, and hands it to the longest-waiting waiter.
-- KEYS[1] lock key, KEYS[2] waiters key, KEYS[3] readers key (see acquire.lua)
-- ARGV[1] the owner token of the acquisition
-- ARGV[2] release channel, ARGV[3] the lock name, ARGV[4] hand-off window in ms
-- ARGV[5] 'w' exclusive, 'r' shared
-- ARGV[6] idle time in ms for which a free lock remembers its last fencing token
-- Returns 1 when released, 0 when the lease had expired or another owner holds the lock.
-- The uncontended exclusive path is GET, SET.

local function now_ms()
    local now = redis.call('TIME')
    return now[1] * 1000 + math.floor(now[2] / 1000)
end

local fence = ''
if ARGV[5] == 'r' then
    local lease_end = redis.call('ZSCORE', KEYS[3], ARGV[1])
    if not lease_end then
        return 0
    end
    redis.call('ZREM', KEYS[3], ARGV[1])
    local now = now_ms()
    if tonumber(lease_end) <= now then
        return 0
    end
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
    if redis.call('ZCARD', KEYS[3]) > 0 or redis.call('GET', KEYS[1]) ~= 'r' then
        return 1 -- other readers still hold it: nothing to hand over yet
    end
else
    local owner = ARGV[1] .. ':'
    local current = redis.call('GET', KEYS[1])
    if not current or string.sub(current, 1, #owner) ~= owner then
        return 0
    end
    fence = string.sub(current, #owner + 1)
    if string.sub(fence, -1) ~= '+' then
        -- Nobody waits: no pub/sub traffic at all. The key stays, free, to carry the fencing token on.
        redis.call('SET', KEYS[1], 'free:' .. fence, 'PX', ARGV[6])
        return 1
    end
    fence = string.sub(fence, 1, -2)
end

redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_ms())
local next = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if next then
    -- Hand the lock to the waiter whose wait ends first (with equal waits: the one that came first) and wake only
    -- it; nobody else may take it during the window. If that waiter is gone, the window just runs out.
    redis.call('SET', KEYS[1], '~' .. next .. ':' .. fence, 'PX', ARGV[4])
    redis.call('PUBLISH', ARGV[2], ARGV[3] .. '\n' .. next)
    return 1
end
if fence == '' then
    redis.call('DEL', KEYS[1])
else
    redis.call('SET', KEYS[1], 'free:' .. fence, 'PX', ARGV[6])
end
return 1
