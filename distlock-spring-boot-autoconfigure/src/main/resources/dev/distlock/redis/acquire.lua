-- Acquires a lock atomically with its lease and a fencing token, exclusively (REENTRANT, FAIR, WRITE) or shared
-- with other readers (READ).
-- KEYS[1] lock key      "<prefix>:{<name>}", expiring with the holder's lease:
--                       "<owner token>:<fencing token>"   an exclusive holder; a trailing "+" means someone waits,
--                                                          so its release must hand the lock over
--                       "r"                               readers hold it (until the latest reader lease ends)
--                       "~<owner token>:<fencing token>"  a release handed it to that waiter (see release.lua)
--                       "free:<fencing token>"            free; remembers the last fencing token while idle
-- KEYS[2] waiters key   "<prefix>:{<name>}:waiters" sorted set: owner token -> end of its wait (server ms)
-- KEYS[3] readers key   "<prefix>:{<name>}:readers" sorted set: owner token -> end of its lease (server ms)
-- KEYS[4] writer key    "<prefix>:{<name>}:writer"  exists while an exclusive request waits: new readers queue
-- ARGV[1] owner token (unguessable, one per acquisition)
-- ARGV[2] lease in ms
-- ARGV[3] ms the caller is prepared to wait (0 = try once, not recorded as a waiter)
-- ARGV[4] '1' on the caller's first attempt, '0' when it has waited already
-- ARGV[5] 'w' exclusive, 'r' shared
-- Returns the fencing token (> 0) when acquired, else -(ms until the holders' leases end) (at most -1).
-- All keys share the {<name>} hash tag, so the script runs on one Redis Cluster slot. The uncontended exclusive
-- path is GET, SET (plus TIME for a name not used for a while): the rest happens only under contention or for
-- readers.

local token = ARGV[1]
local lease = tonumber(ARGV[2])
local shared = ARGV[5] == 'r'

local function now_ms()
    local now = redis.call('TIME')
    return now[1] * 1000 + math.floor(now[2] / 1000)
end

-- Not acquired: record the caller as a waiter (if it will wait), flag the holder so that its release hands the
-- lock over, and tell the caller how long the holders may still hold.
local function refuse(current)
    local wait = tonumber(ARGV[3])
    if wait > 0 then
        redis.call('ZADD', KEYS[2], now_ms() + wait, token)
        if redis.call('PTTL', KEYS[2]) < wait then
            redis.call('PEXPIRE', KEYS[2], wait)
        end
        if not shared and redis.call('PTTL', KEYS[4]) < wait then
            redis.call('SET', KEYS[4], '1', 'PX', wait)
        end
        if current and current ~= 'r' and string.sub(current, 1, 1) ~= '~' and string.sub(current, -1) ~= '+' then
            redis.call('APPEND', KEYS[1], '+')
        end
    end
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl < 1 then
        return -1
    end
    return -ttl
end

local current = redis.call('GET', KEYS[1])
local last_fence = nil
local handed = false
if current then
    if string.sub(current, 1, 5) == 'free:' then -- owner tokens never contain ':', so this is no holder
        last_fence = tonumber(string.sub(current, 6))
        current = false
    elseif string.sub(current, 1, #token + 2) == '~' .. token .. ':' then
        handed = true -- handed to this caller by the last release: nobody else may take it meanwhile
        last_fence = tonumber(string.sub(current, #token + 3))
        current = false
    end
end
if current == 'r' then
    -- Readers hold it: a writer waits; a reader joins unless a writer waits (or writers would starve).
    if not shared or redis.call('EXISTS', KEYS[4]) == 1 then
        return refuse(current)
    end
elseif current then
    local prefix = token .. ':'
    if not shared and string.sub(current, 1, #prefix) == prefix then
        -- Same owner token: a retry of an acquire whose reply was lost. Idempotent: same token, lease refreshed.
        redis.call('PEXPIRE', KEYS[1], lease)
        local fence = string.sub(current, #prefix + 1)
        if string.sub(fence, -1) == '+' then
            fence = string.sub(fence, 1, -2)
        end
        return tonumber(fence)
    end
    return refuse(current)
elseif shared and not handed and redis.call('EXISTS', KEYS[4]) == 1 then
    return refuse(current)
end

-- Fencing: one more than the last token, which the lock key keeps while the lock is held, handed over, or free
-- (the "free:" value expires after the idle time). When there is none (first use, idle expiry, a crashed holder's
-- lease ran out, data loss) the token is the server clock in microseconds. Every token ever issued is at most the
-- clock in microseconds when it was issued (no name can be acquired more than once per microsecond), so a token
-- from the clock is above every earlier one: strictly increasing per name, with no key kept for idle names.
local fence
if last_fence then
    fence = last_fence + 1
else
    local now = redis.call('TIME')
    fence = tonumber(now[1] .. string.format('%06d', tonumber(now[2])))
end

local others_wait = false
if ARGV[4] == '0' then
    redis.call('ZREM', KEYS[2], token) -- no longer waiting
    others_wait = redis.call('EXISTS', KEYS[2]) == 1
    if not shared then
        redis.call('DEL', KEYS[4]) -- other waiting writers set it again when they retry
    end
end
if shared then
    redis.call('ZADD', KEYS[3], now_ms() + lease, token)
    if redis.call('PTTL', KEYS[3]) < lease then
        redis.call('PEXPIRE', KEYS[3], lease)
    end
    if current ~= 'r' then
        redis.call('SET', KEYS[1], 'r', 'PX', lease)
    elseif redis.call('PTTL', KEYS[1]) < lease then
        redis.call('PEXPIRE', KEYS[1], lease)
    end
else
    local value = token .. ':' .. string.format('%.0f', fence)
    if others_wait then
        value = value .. '+'
    end
    redis.call('SET', KEYS[1], value, 'PX', lease)
end
return fence
