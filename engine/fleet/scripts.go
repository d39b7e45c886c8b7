package fleet

import "github.com/redis/go-redis/v9"

// The host budget's scripts read the clock with Redis's TIME, so processes
// on machines whose clocks differ still agree on when a pause ends and when
// a slot expires. Each runs atomically: a check and the write it allows
// cannot interleave with another process's.

// takeSlot admits a request to a host unless the host is paused or its
// in-flight slots (a sorted set of tokens scored by their expiry) are full;
// slots of processes that stopped renewing them (killed) expire first. It
// returns {granted, wait ms (pause; -1 when full), the shared spacing ms}.
var takeSlot = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = tonumber(redis.call('HGET', KEYS[2], 'until') or '0')
if paused > now then return {0, paused - now, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return {0, -1, 0} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, 0, tonumber(redis.call('HGET', KEYS[2], 'spacing') or ARGV[4])}
`)

// renewSlot pushes a held slot's expiry on (XX: only while it is held).
var renewSlot = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`)

// slowDown is a host asking the fleet to slow down (hosts.go in
// engine/ladder, shared): the spacing doubles within [ARGV[3], ARGV[4]] ms
// from at least the interval ARGV[2], the calm count restarts, and the host
// is paused for ARGV[1] ms from now unless already paused longer. With
// ARGV[5] = 0 it only pauses (a 429's retry wait).
var slowDown = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilv = now + tonumber(ARGV[1])
if untilv > tonumber(redis.call('HGET', KEYS[1], 'until') or '0') then redis.call('HSET', KEYS[1], 'until', untilv) end
if ARGV[5] == '1' then
  local sp = tonumber(redis.call('HGET', KEYS[1], 'spacing') or ARGV[2])
  sp = math.min(math.max(2 * sp, tonumber(ARGV[3])), tonumber(ARGV[4]))
  redis.call('HSET', KEYS[1], 'spacing', sp, 'calm', 0)
end
return redis.call('PEXPIRE', KEYS[1], ARGV[6])
`)

// answered is an ordinary answer: after ARGV[2] in a row a slowed host's
// spacing halves, back to the interval ARGV[1] once under ARGV[3] ms. It
// returns the spacing now in force.
var answered = redis.NewScript(`
local iv = tonumber(ARGV[1])
local sp = tonumber(redis.call('HGET', KEYS[1], 'spacing') or ARGV[1])
if sp <= iv then return sp end
if redis.call('HINCRBY', KEYS[1], 'calm', 1) >= tonumber(ARGV[2]) then
  sp = math.max(iv, math.floor(sp / 2))
  if sp < tonumber(ARGV[3]) then sp = iv end
  redis.call('HSET', KEYS[1], 'spacing', sp, 'calm', 0)
end
return sp
`)
