-- Who holds a lock (RedisDescriptions), read only: {holder, fencing token, lease remaining in ms, waiters}, or {}
-- when the name is free. The keys are acquire.lua's, all five. The owner stored in the keys is
-- "<owner token>|<holder identity in base64url>" (LuaScript.owner, which decodes it too); an older version's has no
-- "|<holder>", and its holder is ''.
-- Readers and permit holders: the one whose lease ends last, with its token from the permits key (readers keep
-- none: '0'). A lock handed over to a waiter ('=' or '~') is described as that waiter's.
local current = redis.call('GET', KEYS[1])
if not current or string.byte(current, 1) == 33 then -- '!': free, a Redlock master keeps the released token
    return {}
end
local waiters = redis.call('ZCARD', KEYS[2])

local function holder_of(owner)
    local bar = string.find(owner, '|', 1, true)
    if bar then
        return string.sub(owner, bar + 1)
    end
    return ''
end

local first = string.byte(current, 1)
if current == 'r' or first == 35 then -- readers, or '#': permit holders
    local now = redis.call('TIME')
    local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    local last = redis.call('ZREVRANGE', KEYS[3], 0, 0, 'WITHSCORES')
    if #last == 0 or tonumber(last[2]) <= now_ms then
        return {}
    end
    local fence = redis.call('HGET', KEYS[5], last[1]) or '0'
    return { holder_of(last[1]), fence, tonumber(last[2]) - now_ms, waiters }
end
if first == 61 or first == 126 then -- '=' or '~': handed to a waiter
    current = string.sub(current, 2)
end
if string.byte(current, -1) == 43 then -- '+': someone waits
    current = string.sub(current, 1, -2)
end
-- "<owner>:<fence>": owners have no colon (base64url), the fence follows it.
local colon = string.find(current, ':[^:]*$')
return { holder_of(string.sub(current, 1, colon - 1)), string.sub(current, colon + 1),
    math.max(redis.call('PTTL', KEYS[1]), 0), waiters }
