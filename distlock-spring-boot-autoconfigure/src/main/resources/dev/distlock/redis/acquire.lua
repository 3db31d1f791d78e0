-- Acquires a lock atomically with its lease and a fencing token.
-- KEYS[1] lock key      "<prefix>:{<name>}"         value "<owner token>:<fencing token>", expires with the lease
-- KEYS[2] fence key     "<prefix>:{<name>}:fence"   last fencing token issued for the name, expires when idle
-- KEYS[3] waiters key   "<prefix>:{<name>}:waiters" exists while someone waits, so release publishes only then
-- ARGV[1] owner token (unguessable, one per acquisition)
-- ARGV[2] lease in ms
-- ARGV[3] idle time in ms after which the fence counter may expire
-- ARGV[4] ms the caller is prepared to wait (0 = try once, no waiter mark)
-- ARGV[5] '1' on the caller's first attempt, '0' when it has waited already
-- Returns the fencing token (> 0) when acquired, else -(remaining lease in ms) of the current holder (at most -1).
-- All keys share the {<name>} hash tag, so the script runs on one Redis Cluster slot.

local current = redis.call('GET', KEYS[1])
if current then
    local prefix = ARGV[1] .. ':'
    if string.sub(current, 1, #prefix) == prefix then
        -- Same owner token: a retry of an acquire whose reply was lost. Idempotent: same token, lease refreshed.
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return tonumber(string.sub(current, #prefix + 1))
    end
    local wait = tonumber(ARGV[4])
    if wait > 0 and redis.call('PTTL', KEYS[3]) < wait then
        redis.call('SET', KEYS[3], '1', 'PX', wait)
    end
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl < 1 then
        return -1
    end
    return -ttl
end

-- No barging: a newcomer that will wait lets those who waited already go first (it comes back as a waiter 1 ms
-- later), so a holder that releases and asks again at once cannot starve the others. A try-once caller is let in.
if ARGV[5] == '1' and tonumber(ARGV[4]) > 0 and redis.call('EXISTS', KEYS[3]) == 1 then
    return -1
end

-- Fencing: INCR while the counter lives; when it is absent (first use, idle expiry, data loss) seed it from the
-- server clock in microseconds. Every token ever issued is at most the clock in microseconds at the time (no name
-- can be acquired more than once per microsecond), so a fresh seed is above every earlier token.
if redis.call('EXISTS', KEYS[2]) == 0 then
    local now = redis.call('TIME')
    redis.call('SET', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
end
local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%.0f', fence), 'PX', ARGV[2])
return fence
