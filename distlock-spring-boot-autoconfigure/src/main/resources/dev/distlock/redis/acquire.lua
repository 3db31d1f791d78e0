-- Acquires a lock atomically with its lease and a fencing token.
-- KEYS[1] lock key      "<prefix>:{<name>}"         "<owner token>:<fencing token>" with the lease as expiry,
--                                                    or "~" for a short hand-off to waiters (see release.lua)
-- KEYS[2] fence key     "<prefix>:{<name>}:fence"   last fencing token issued for the name, expires when idle
-- KEYS[3] waiters key   "<prefix>:{<name>}:waiters" sorted set: owner token -> end of its wait (server ms), so
--                                                    release wakes and reserves only for live waiters
-- ARGV[1] owner token (unguessable, one per acquisition)
-- ARGV[2] lease in ms
-- ARGV[3] idle time in ms after which the fence counter may expire
-- ARGV[4] ms the caller is prepared to wait (0 = try once, no waiter mark)
-- ARGV[5] '1' on the caller's first attempt, '0' when it has waited already
-- Returns the fencing token (> 0) when acquired, else -(remaining lease in ms) of the current holder (at most -1).
-- All keys share the {<name>} hash tag, so the script runs on one Redis Cluster slot.

local current = redis.call('GET', KEYS[1])
if current == '~' and ARGV[5] == '0' then
    -- Handed off to those who waited: a newcomer (such as the holder that just released) cannot barge in.
    current = false
end
if current then
    local prefix = ARGV[1] .. ':'
    if string.sub(current, 1, #prefix) == prefix then
        -- Same owner token: a retry of an acquire whose reply was lost. Idempotent: same token, lease refreshed.
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return tonumber(string.sub(current, #prefix + 1))
    end
    local wait = tonumber(ARGV[4])
    if wait > 0 then
        local now = redis.call('TIME')
        redis.call('ZADD', KEYS[3], now[1] * 1000 + math.floor(now[2] / 1000) + wait, ARGV[1])
        if redis.call('PTTL', KEYS[3]) < wait then
            redis.call('PEXPIRE', KEYS[3], wait)
        end
    end
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl < 1 then
        return -1
    end
    return -ttl
end

-- Fencing: INCR while the counter lives; when it is absent (first use, idle expiry, data loss) seed it from the
-- server clock in microseconds. Every token ever issued is at most the clock in microseconds at the time (no name
-- can be acquired more than once per microsecond), so a fresh seed is above every earlier token.
if redis.call('EXISTS', KEYS[2]) == 0 then
    local now = redis.call('TIME')
    redis.call('SET', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
end
local fence = redis.call('INCR', KEYS[2])
if ARGV[5] == '0' then
    redis.call('ZREM', KEYS[3], ARGV[1]) -- no longer waiting
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%.0f', fence), 'PX', ARGV[2])
return fence
