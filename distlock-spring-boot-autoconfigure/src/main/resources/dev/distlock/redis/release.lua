-- Releases a lock if, and only if, the caller still owns it, and wakes waiters.
-- KEYS[1] lock key, KEYS[2] waiters key (see acquire.lua)
-- ARGV[1] the owner token of the acquisition (the value written by acquire.lua starts with it and a colon)
-- ARGV[2] release channel, ARGV[3] message (the lock name), ARGV[4] hand-off window in ms
-- Returns 1 when released, 0 when the lease had expired or another owner holds the lock.

local owner = ARGV[1] .. ':'
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #owner) ~= owner then
    return 0
end
if redis.call('EXISTS', KEYS[2]) == 1 then
    local now = redis.call('TIME')
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now[1] * 1000 + math.floor(now[2] / 1000))
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
