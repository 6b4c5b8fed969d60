# test_usage.sh — help, version, unknown commands and options, bad values:
# every one a clear message on stderr and exit status 2 (0 for --help).
. "$(dirname "$0")/lib.sh"

expect 2 "no command" "$BS"
stderr_has "Usage: bloomsimd COMMAND" "no command prints usage"
expect 0 "--help" "$BS" --help
stdout_has "Commands:" "--help lists commands"
expect 0 "--version" "$BS" --version
stdout_has "libbloomsimd" "--version names the library"
expect 2 "unknown command" "$BS" frobnicate
stderr_has "unknown command 'frobnicate'" "unknown command message"
expect 2 "option before command" "$BS" --capacity 3
stderr_has "a command comes first" "option before command message"
expect 0 "help CMD" "$BS" help dedup
stdout_has "Usage: bloomsimd dedup" "help dedup"
expect 2 "help of an unknown command" "$BS" help nope

for cmd in create add query dedup info merge check bench; do
  expect 0 "$cmd --help" "$BS" "$cmd" --help
  stdout_has "Usage: bloomsimd $cmd" "$cmd --help shows its usage"
  stderr_empty "$cmd --help"
done
for cmd in create add query dedup info merge check; do
  expect 2 "$cmd with an unknown option" "$BS" "$cmd" --no-such-option
  stderr_has "bloomsimd $cmd: unknown option '--no-such-option'" "$cmd unknown option message"
  stderr_has "Try 'bloomsimd $cmd --help'" "$cmd points to its help"
  expect 2 "$cmd with an unknown short option" "$BS" "$cmd" -Y
  stderr_has "unknown option '-Y'" "$cmd unknown short option message"
done

# missing operands
expect 2 "create without FILE" "$BS" create --capacity 10
stderr_has "missing FILE" "create without FILE"
expect 2 "create without capacity" "$BS" create x.bsf
stderr_has "--capacity N is required" "create without capacity"
expect 2 "create with two FILEs" "$BS" create x.bsf y.bsf --capacity 10
stderr_has "one FILE only" "create with two FILEs"
expect 2 "add without FILE" "$BS" add
expect 2 "query without FILE" "$BS" query
expect 2 "info without FILE" "$BS" info
expect 2 "check without FILE" "$BS" check
expect 2 "merge without IN" "$BS" merge out.bsf
stderr_has "missing IN" "merge without IN"
expect 2 "option needs a value" "$BS" create x.bsf --capacity
stderr_has "option '--capacity' needs a value" "missing option value"

# bad values: each message names the option and the allowed range or form
expect 2 "capacity not a number" "$BS" create x.bsf --capacity lots
stderr_has "--capacity 'lots': not a whole number" "capacity not a number"
expect 2 "capacity zero" "$BS" create x.bsf --capacity 0
stderr_has "--capacity 0: out of range, must be from 1" "capacity zero"
expect 2 "capacity fraction" "$BS" create x.bsf --capacity 1.5
expect 2 "capacity negative" "$BS" create x.bsf --capacity -5
expect 2 "fpr too small" "$BS" create x.bsf --capacity 10 --fpr 1e-11
stderr_has "--fpr 1e-11: out of range, must be at least 1e-10 and below 1" "fpr too small"
expect 2 "fpr one" "$BS" create x.bsf --capacity 10 --fpr 1
expect 2 "fpr nan" "$BS" create x.bsf --capacity 10 --fpr nan
stderr_has "not a number" "fpr nan"
expect 2 "k too large" "$BS" create x.bsf --capacity 10 --k 17
stderr_has "--k 17: out of range, must be from 1 to 16" "k too large"
expect 2 "field zero" "$BS" dedup --field 0
stderr_has "--field 0: out of range" "field zero"
expect 2 "two-byte delimiter" "$BS" dedup --field 2 --delimiter ab
stderr_has "must be one byte" "two-byte delimiter"
expect 2 "delimiter without field" "$BS" dedup --delimiter ,
stderr_has "--delimiter needs --field N" "delimiter without field"
expect 2 "crlf with null" "$BS" dedup --crlf --null
stderr_has "--crlf applies to lines" "crlf with null"
expect 2 "growth 1" "$BS" create x.bsf --capacity 10 --growth 1
stderr_has "--growth 1: out of range, must be from 2" "growth must be at least 2"
expect 2 "growth with bits" "$BS" create x.bsf --bits 1M --growth 2
stderr_has "not with --bits" "growth with bits"
run "$BS" create g.bsf --capacity 10 --growth 2
if [ "$rc" = 2 ]; then # a library without scalable filters says so
  stderr_has "cannot create scalable filters yet" "growth says what it needs"
else
  equals "$rc" 0 "create --growth"
fi
expect 2 "accept-unsynced without state" "$BS" dedup --accept-unsynced
[ -e x.bsf ] && fail "a failed create left x.bsf behind"

# the number forms that are accepted
for n in 1000 1e3 10^3 1k 1K 0x3e8 1.5k 2M; do
  expect 0 "capacity $n" "$BS" create "n$n.bsf" --capacity "$n"
done
expect 0 "info of 1k" "$BS" info n1k.bsf
stdout_has "capacity:          1000 keys" "1k means 1000"
expect 0 "info of 10^3" "$BS" info "n10^3.bsf"
stdout_has "capacity:          1000 keys" "10^3 means 1000"
expect 0 "a rate as a percentage" "$BS" create pct.bsf --capacity 1000 --fpr 1%
expect 0 "info of --fpr 1%" "$BS" info pct.bsf
stdout_has "target FPR:        0.01" "1% means 0.01"
expect 2 "10^ without a power" "$BS" create bad.bsf --capacity 10^
expect 2 "10^20 overflows" "$BS" create bad.bsf --capacity 10^20
expect 0 "info of 1.5k" "$BS" info n1.5k.bsf
stdout_has "capacity:          1500 keys" "1.5k means 1500"

# bench: runs bloomsimd-bench when it is built, else says where it would be
run "$BS" bench -- --help
if [ "$rc" = 0 ]; then
  stdout_has "bloomsimd-bench" "bench runs bloomsimd-bench"
else
  equals "$rc" 2 "bench without bloomsimd-bench"
  stderr_has "cannot run bloomsimd-bench" "bench says why it cannot run"
fi
done_testing
