-- bf_info.lua: every number of INFO bf as name/value pairs, for redis_exporter's
-- -script option, which EVALs a script with no keys and exports each pair as
-- redis_script_values{key="<name>"} (docs/OPERATIONS.md). The two text fields
-- (bf_kernel, bf_layout) are left out: a metric is a number.
local out = {}
for name, value in string.gmatch(redis.call('INFO', 'bf'), '(bf_[%w_]+):(%-?[%d%.]+)\r\n') do
  out[#out + 1] = name
  out[#out + 1] = value
end
return out
