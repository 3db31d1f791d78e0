-- Releases a lock if, and only if, the caller still owns it, and wakes waiters.
-- KEYS[1] lock key, KEYS[2] waiters key (see acquire.lua)
-- ARGV[1] the owner token of the acquisition (the value written by acquire.lua starts with it and a colon)
-- ARGV[2] release channel, ARGV[3] message (the lock name)
-- Returns 1 when released, 0 when the lease had expired or another owner holds the lock.

local owner = ARGV[1] .. ':'
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #owner) ~= owner then
    return 0
end
redis.call('DEL', KEYS[1])
-- Publish only when someone marked that they wait: an uncontended release costs no pub/sub traffic. The mark
-- stays until the longest announced wait ends, so newcomers keep yielding to the woken waiters.
if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 1
