-- Releases a lock if, and only if, the caller still holds it, and wakes waiters.
-- KEYS[1] lock key, KEYS[2] waiters key, KEYS[3] readers key (see acquire.lua)
-- ARGV[1] the owner token of the acquisition
-- ARGV[2] release channel, ARGV[3] message (the lock name), ARGV[4] hand-off window in ms
-- ARGV[5] 'w' exclusive, 'r' shared
-- Returns 1 when released, 0 when the lease had expired or another owner holds the lock.

local now = redis.call('TIME')
local now_ms = now[1] * 1000 + math.floor(now[2] / 1000)

if ARGV[5] == 'r' then
    local lease_end = redis.call('ZSCORE', KEYS[3], ARGV[1])
    if not lease_end then
        return 0
    end
    redis.call('ZREM', KEYS[3], ARGV[1])
    if tonumber(lease_end) <= now_ms then
        return 0
    end
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
    if redis.call('ZCARD', KEYS[3]) > 0 or redis.call('EXISTS', KEYS[1]) == 1 then
        return 1 -- other readers still hold it (or a hand-off is under way): nothing to wake yet
    end
else
    local owner = ARGV[1] .. ':'
    local current = redis.call('GET', KEYS[1])
    if not current or string.sub(current, 1, #owner) ~= owner then
        return 0
    end
end

if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_ms)
    if redis.call('ZCARD', KEYS[2]) > 0 then
        -- Someone waits: reserve the lock for the waiters for a short window (a woken waiter takes it, a newcomer
        -- has to queue up), and wake them.
        redis.call('SET', KEYS[1], '~', 'PX', ARGV[4])
        redis.call('PUBLISH', ARGV[2], ARGV[3])
        return 1
    end
end
-- Nobody waits: delete, and no pub/sub traffic at all.
redis.call('DEL', KEYS[1])
return 1
