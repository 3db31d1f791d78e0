-- Releases a lock if, and only if, the caller still holds it, and hands it to the longest-waiting waiter; or
-- undoes everything a request that gave up may hold.
-- KEYS[1] lock key, KEYS[2] waiters key, KEYS[3] readers key, KEYS[4] writer key, KEYS[5] permits key (see
-- acquire.lua; passed for a request of permits and for 'f', whose paths are the only ones that touch it)
-- ARGV[1] the owner token of the acquisition (empty for 'f')
-- ARGV[2] release channel: "<prefix>:released", or on Redis Cluster with sharded pub/sub the channel of the lock's
--         slot, "<prefix>:released:{<tag>}" (ShardChannels), published with SPUBLISH (key prefixes have no '{')
-- ARGV[3] the lock name, ARGV[4] hand-off window in ms
-- ARGV[5] 'w' release an exclusive lock, 'r' release a shared lock, 'p' release a permit, 'c' the request gave up: forget its waiter
--         registration and release or pass on whatever it holds (a timeout, an interrupt, or an acquire whose
--         reply never came), 'f' an operator's force release: whoever holds the lock loses it
-- ARGV[6] for 'w': the holder's fencing token, passed on to the next holder
-- ARGV[7] for 'w', on a Redlock master only: ms, a second or the lease when shorter (RedisLockStore). A release
--         that leaves the lock free keeps the holder's token for that long, as "!<token>", the floor of the next
--         token (acquire.lua): the next majority may lack the master whose clock issued it. Absent: the key is
--         deleted.
-- On a Redlock master a release of a flagged lock with nobody queued publishes "<name>\n": pollers try now.
-- Returns 1 when released, 0 when the lease had expired or another owner holds the lock (for 'f': nobody held it,
-- nor was it being handed over).

-- The marker bytes of the arguments (ScriptMarker on the Java side) and of the lock key's value (see acquire.lua).
-- They are part of the wire format that nodes of different versions share: never change them.
local EXCLUSIVE, SHARED, PERMIT, CANCEL, FORCE = 'w', 'r', 'p', 'c', 'f' -- ARGV[5]
local READERS = 'r'                             -- the lock key's value while readers hold it
local HANDED = 61                               -- string.byte('='): the value starts with it while handed over
local RESERVED = 126                            -- string.byte('~'): an older version's hand-over
local PERMITS = 35                              -- string.byte('#'): "#<permits>:<last token>" while permits are held
local FLAGGED = 43                              -- string.byte('+'): the value ends with it while someone waits
local FLOOR = 33                                -- string.byte('!'): "!<token>" free, the released token kept

-- The uncontended path first, before anything else is set up: the holder's own key, nobody waiting (no trailing
-- "+"), is GET and DEL; a released lock leaves no key behind (on a Redlock master, its token for a second).
if ARGV[5] == EXCLUSIVE then
    local current = redis.call('GET', KEYS[1]) -- "<owner>:<fencing token>", compared in place (no new strings)
    if current and string.byte(current, -1) ~= FLAGGED and string.byte(current, #ARGV[1] + 1) == 58 -- ':'
            and string.find(current, ARGV[1], 1, true) == 1 then
        if ARGV[7] then
            redis.call('SET', KEYS[1], '!' .. ARGV[6], 'PX', ARGV[7])
        else
            redis.call('DEL', KEYS[1])
        end
        return 1
    end
end

local token = ARGV[1]
local mode = ARGV[5]
local PUBLISH = string.find(ARGV[2], '{', 1, true) and 'SPUBLISH' or 'PUBLISH'

-- Whether the value is a hand-over to a waiter (see acquire.lua).
local function handed(value)
    local first = string.byte(value, 1)
    return first == HANDED or first == RESERVED
end

-- The fencing token of a hand-over "=<owner token>:<token>" (owner tokens have no ':'; an older version's refusal
-- may have flagged it with a trailing "+").
local function handed_fence(value)
    local fence = string.sub(value, string.find(value, ':', 1, true) + 1)
    if string.byte(fence, -1) == FLAGGED then
        fence = string.sub(fence, 1, -2)
    end
    return fence
end

-- Leaves the lock free: deleted, or on a Redlock master "!<fence>" for ARGV[7] ms (a token, not a reader's '0').
local function free(fence)
    if ARGV[7] and tonumber(fence) > 0 then
        redis.call('SET', KEYS[1], '!' .. fence, 'PX', ARGV[7])
    else
        redis.call('DEL', KEYS[1])
    end
end

-- Hands the lock to the waiter that came first, with its fencing token (issued now, as acquire.lua issues one:
-- above the last and at least the server clock in µs), and tells it:
-- "<name>\n<waiter's owner token>\n<token>\n<server clock in µs>". The clock goes beside the token because the token
-- may be ahead of this server's clock (it is above the previous holder's, which a master before a failover issued).
-- For the window the lock is that waiter's alone; its next attempt confirms it with that token and the full lease.
-- A waiter that is gone costs that one window: it is no longer in the queue afterwards.
local function hand_off(fence)
    local next = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
    if not next then
        if ARGV[7] then
            -- A Redlock master: the refusals that flagged the lock were a quorum's polls. "<name>\n" wakes them all.
            redis.call(PUBLISH, ARGV[2], ARGV[3] .. '\n')
        end
        free(fence)
        return
    end
    redis.call('ZREM', KEYS[2], next)
    local now = redis.call('TIME')
    local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
    local next_fence = string.format('%.0f', math.max(tonumber(fence) + 1, now_us))
    -- Publish before writing: a user without the channel permission fails here, with nothing changed.
    redis.call(PUBLISH, ARGV[2], ARGV[3] .. '\n' .. next .. '\n' .. next_fence .. '\n' .. string.format('%.0f', now_us))
    redis.call('SET', KEYS[1], '=' .. next .. ':' .. next_fence, 'PX', ARGV[4])
end

local function release_shared()
    local lease_end = redis.call('ZSCORE', KEYS[3], token)
    if not lease_end then
        return 0
    end
    redis.call('ZREM', KEYS[3], token)
    local now = redis.call('TIME')
    local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    if tonumber(lease_end) <= now_ms then
        return 0
    end
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
    if redis.call('ZCARD', KEYS[3]) == 0 and redis.call('GET', KEYS[1]) == READERS then
        hand_off('0')
    end
    return 1
end

-- The server time in ms, and in µs as a second value.
local function now_ms()
    local now = redis.call('TIME')
    return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), tonumber(now[1]) * 1000000 + tonumber(now[2])
end

-- Reserves every free permit for the longest waiters, each with its token and for the hand-off window, and wakes
-- each; the name's keys go once nobody holds a permit (see acquire.lua).
local function hand_off_permits()
    local current = redis.call('GET', KEYS[1])
    if not current or string.byte(current, 1) ~= PERMITS then
        return
    end
    local colon = string.find(current, ':', 1, true)
    local permits, last = tonumber(string.sub(current, 2, colon - 1)), tonumber(string.sub(current, colon + 1))
    local ms, us = now_ms()
    local ended = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ms)
    if #ended > 0 then
        redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ms)
        redis.call('HDEL', KEYS[5], unpack(ended))
    end
    local free = permits - redis.call('ZCARD', KEYS[3])
    if free > 0 then
        for _, waiter in ipairs(redis.call('ZRANGE', KEYS[2], 0, free - 1)) do
            last = math.max(last + 1, us)
            redis.call('ZREM', KEYS[2], waiter)
            redis.call(PUBLISH, ARGV[2], ARGV[3] .. '\n' .. waiter)
            redis.call('HSET', KEYS[5], waiter, string.format('%.0f', last))
            redis.call('ZADD', KEYS[3], ms + tonumber(ARGV[4]), waiter)
        end
    end
    if redis.call('ZCARD', KEYS[3]) == 0 then
        redis.call('DEL', KEYS[1], KEYS[3], KEYS[5])
        return
    end
    redis.call('SET', KEYS[1], '#' .. permits .. ':' .. string.format('%.0f', last), 'KEEPTTL')
    if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
    end
end

-- Ends one permit holder's lease and passes its permit on; 0 when it no longer held one.
local function release_permit()
    local lease_end = redis.call('ZSCORE', KEYS[3], token)
    if not lease_end then
        return 0
    end
    redis.call('ZREM', KEYS[3], token)
    redis.call('HDEL', KEYS[5], token)
    hand_off_permits()
    if tonumber(lease_end) <= now_ms() then
        return 0
    end
    return 1
end

-- current: the lock key's value, known to start with "<token>:"
local function release_exclusive(current, fence)
    local flagged = string.byte(current, -1) == FLAGGED
    if not fence then
        fence = string.sub(current, #token + 2, flagged and -2 or -1)
    end
    if not flagged then
        free(fence)
        return 1
    end
    hand_off(fence)
    return 1
end

if mode == SHARED then
    return release_shared()
end
if mode == PERMIT then
    return release_permit()
end
local current = redis.call('GET', KEYS[1])
if mode == FORCE then
    if not current or string.byte(current, 1) == FLOOR then
        return 0
    end
    if handed(current) then
        -- A name being handed over counts as held: its waiter may have started on it. Pass it on above the handed
        -- token, as a cancel does, so that the waiter's confirmation is refused and its early start ends as a lost
        -- lease, like any holder's.
        hand_off(handed_fence(current))
        return 1
    end
    if string.byte(current, 1) == PERMITS then
        local held = redis.call('ZCOUNT', KEYS[3], '(' .. now_ms(), '+inf')
        redis.call('DEL', KEYS[3], KEYS[5])
        hand_off_permits()
        return held > 0 and 1 or 0
    end
    if current == READERS then
        redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', (now_ms()))
        local readers = redis.call('ZCARD', KEYS[3])
        redis.call('DEL', KEYS[3])
        hand_off('0')
        return readers > 0 and 1 or 0
    end
    -- The holder's token is the value up to its first ':' (owner tokens have none).
    token = string.sub(current, 1, string.find(current, ':', 1, true) - 1)
    return release_exclusive(current, nil)
end
local mine = token .. ':'
if mode == EXCLUSIVE then
    if current and handed(current) and string.sub(current, 2, #mine + 1) == mine then
        -- Handed to this request, which started on it and releases before its confirmation ran: it is its lock.
        hand_off(ARGV[6])
        return 1
    end
    if not current or string.sub(current, 1, #mine) ~= mine then
        return 0
    end
    return release_exclusive(current, ARGV[6])
end
-- mode == CANCEL
redis.call('ZREM', KEYS[2], token)
if redis.call('GET', KEYS[4]) == token then
    redis.call('DEL', KEYS[4])
end
if not current then
    return 1
end
if handed(current) and string.sub(current, 2, #mine + 1) == mine then
    -- Handed to this request: pass it on, above its token.
    hand_off(handed_fence(current))
elseif string.sub(current, 1, #mine) == mine then
    release_exclusive(current, nil)
elseif current == READERS then
    release_shared()
elseif string.byte(current, 1) == PERMITS then
    release_permit()
end
return 1
