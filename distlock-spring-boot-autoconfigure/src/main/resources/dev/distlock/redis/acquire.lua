-- Acquires a lock atomically with its lease and a fencing token, exclusively (REENTRANT, FAIR, WRITE) or shared
-- with other readers (READ).
-- KEYS[1] lock key      "<prefix>:{<name>}"         exclusive holder "<owner token>:<fencing token>" with the lease
--                                                    as expiry, or "~" for a short hand-off to waiters (release.lua)
-- KEYS[2] fence key     "<prefix>:{<name>}:fence"   last fencing token issued for the name, expires when idle
-- KEYS[3] waiters key   "<prefix>:{<name>}:waiters" sorted set: owner token -> end of its wait (server ms), so
--                                                    release wakes and reserves only for live waiters
-- KEYS[4] readers key   "<prefix>:{<name>}:readers" sorted set: owner token -> end of its lease (server ms)
-- KEYS[5] writer key    "<prefix>:{<name>}:writer"  exists while an exclusive request waits: new readers queue
-- ARGV[1] owner token (unguessable, one per acquisition)
-- ARGV[2] lease in ms
-- ARGV[3] idle time in ms after which the fence counter may expire
-- ARGV[4] ms the caller is prepared to wait (0 = try once, not recorded as a waiter)
-- ARGV[5] '1' on the caller's first attempt, '0' when it has waited already
-- ARGV[6] 'w' exclusive, 'r' shared
-- Returns the fencing token (> 0) when acquired, else -(ms until the holders' leases end) (at most -1).
-- All keys share the {<name>} hash tag, so the script runs on one Redis Cluster slot.

local function now_ms()
    local now = redis.call('TIME')
    return now[1] * 1000 + math.floor(now[2] / 1000)
end

-- Not acquired: record the caller as a waiter (if it will wait) and tell it how long the holders may still hold.
local function refuse(ttl)
    local wait = tonumber(ARGV[4])
    if wait > 0 then
        redis.call('ZADD', KEYS[3], now_ms() + wait, ARGV[1])
        if redis.call('PTTL', KEYS[3]) < wait then
            redis.call('PEXPIRE', KEYS[3], wait)
        end
        if ARGV[6] == 'w' and redis.call('PTTL', KEYS[5]) < wait then
            redis.call('SET', KEYS[5], '1', 'PX', wait)
        end
    end
    if ttl < 1 then
        return -1
    end
    return -ttl
end

-- Readers whose lease ended without a release (a crashed reader) no longer count.
local function live_readers()
    if redis.call('EXISTS', KEYS[4]) == 0 then
        return false
    end
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now_ms())
    return redis.call('ZCARD', KEYS[4]) > 0
end

local shared = ARGV[6] == 'r'
local waited = ARGV[5] == '0'
local current = redis.call('GET', KEYS[1])
if current == '~' and waited then
    -- Handed off to those who waited: a newcomer (such as the holder that just released) cannot barge in.
    redis.call('DEL', KEYS[1])
    current = false
end
if current then
    local prefix = ARGV[1] .. ':'
    if not shared and string.sub(current, 1, #prefix) == prefix then
        -- Same owner token: a retry of an acquire whose reply was lost. Idempotent: same token, lease refreshed.
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return tonumber(string.sub(current, #prefix + 1))
    end
    return refuse(redis.call('PTTL', KEYS[1]))
end
if shared then
    -- Readers do not overtake a waiting writer, or a steady stream of readers would starve writers.
    if redis.call('EXISTS', KEYS[5]) == 1 then
        return refuse(redis.call('PTTL', KEYS[4]))
    end
elseif live_readers() then
    return refuse(redis.call('PTTL', KEYS[4]))
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
if waited then
    redis.call('ZREM', KEYS[3], ARGV[1]) -- no longer waiting
    if not shared then
        redis.call('DEL', KEYS[5]) -- other waiting writers set it again when they retry
    end
end
if shared then
    redis.call('ZADD', KEYS[4], now_ms() + tonumber(ARGV[2]), ARGV[1])
    if redis.call('PTTL', KEYS[4]) < tonumber(ARGV[2]) then
        redis.call('PEXPIRE', KEYS[4], ARGV[2])
    end
else
    redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%.0f', fence), 'PX', ARGV[2])
end
return fence
