-- Runs several calls of acquire.lua and release.lua in one script call (ScriptBatcher): the calls that queued for
-- the lock connection while the previous call was in flight. Loaded behind both scripts, each wrapped as a function
-- of its KEYS and ARGV (LuaScript.BATCH), so that each call runs exactly the code it runs alone.
-- KEYS     every call's keys, one call after the other
-- ARGV[1]  how many calls; then per call: 'a' (acquire.lua) or 'r' (release.lua), its number of keys, its number of
--          arguments, its arguments
-- Returns one reply per call, in order: the script's integer, or its error as a string (a script's error fails that
-- call alone). A batch holds each lock key at most once (ScriptBatcher): a name's calls stay in separate script
-- calls, as when they are sent alone, so each reads a later server clock than the one before.
local replies = {}
local k, a = 0, 2
for i = 1, tonumber(ARGV[1]) do
    local run = ARGV[a] == 'a' and acquire or release
    local key_count, arg_count = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    local keys, args = {}, {}
    for j = 1, key_count do
        keys[j] = KEYS[k + j]
    end
    for j = 1, arg_count do
        args[j] = ARGV[a + 2 + j]
    end
    k, a = k + key_count, a + 3 + arg_count
    local ok, reply = pcall(run, keys, args)
    if type(reply) == 'table' then
        reply = reply.err or 'ERR a table reply'         -- redis.error_reply, or Redis 7's raised error
    elseif not ok or type(reply) ~= 'number' then
        reply = 'ERR ' .. tostring(reply)               -- Redis 6's raised error, or a reply no script gives
    end
    replies[i] = reply
end
return replies
