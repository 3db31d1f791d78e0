-- The holder identities of one holder reference (HolderKeys): lock values carry a 4-character reference to their
-- holder's identity, not the identity itself, so that a held lock's value stays within Redis's 44-byte embedded
-- string (one allocation, ~30 bytes less per lock). Two identities whose references collide (24 bits of a hash)
-- share the key: both are kept and described, never one in place of the other.
-- KEYS[1] holder key  "<prefix>:holder:<reference>" hash: holder identity -> end of its entry (server ms)
-- ARGV[1] the identity to keep, ARGV[2] for how long in ms (written now and then while the instance locks), or 0
--         to drop it (the instance's store closes); no arguments: read
-- Returns the identities whose entries have not ended.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local entries = redis.call('HGETALL', KEYS[1])
local live = {}
for i = 1, #entries, 2 do
    if tonumber(entries[i + 1]) > now_ms then
        live[#live + 1] = entries[i]
    elseif ARGV[1] then
        redis.call('HDEL', KEYS[1], entries[i]) -- an ended instance's entry (a collision's, or a crashed holder's)
    end
end
local keep = tonumber(ARGV[2])
if keep == 0 then
    redis.call('HDEL', KEYS[1], ARGV[1])
elseif keep then
    redis.call('HSET', KEYS[1], ARGV[1], now_ms + keep)
    if redis.call('PTTL', KEYS[1]) < keep then
        redis.call('PEXPIRE', KEYS[1], keep)
    end
end
return live
