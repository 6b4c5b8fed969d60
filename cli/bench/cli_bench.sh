#!/usr/bin/env bash
# cli_bench.sh — the command-line tool against the usual tools.
#
#   bash cli/bench/cli_bench.sh [--full] [--short] [--records N[,N...]] [--rounds R] [--ref-rounds K]
#                               [--build DIR] [--dir DIR] [--md FILE] [--keep] [--only dedup|addquery]
#
# --short (scripts/bench.sh): one line per workload instead of the tables.
#
# Workloads (records made by bloomsimd-gen-records, a small C program):
#   dedup:      N random records of 8..64 bytes, 30% of them repeats of earlier ones;
#               bloomsimd dedup (--capacity N --fpr 1e-4) vs LC_ALL=C sort -u,
#               awk '!seen[$0]++' and LC_ALL=C sort | uniq; all write to /dev/null.
#   add/query:  N distinct 16-byte records (17 bytes a line), and the 8..64 file;
#               bloomsimd add / query -c (filter sized for N at 1%) vs cat > /dev/null,
#               the I/O floor (page cache to a buffer, the least any reader pays).
# Default (scripts/bench.sh, the main job): N = 10^6, 3 rounds, the reference
# tools in the first only; about half a minute. --full: N = 10^7 and 10^8, the
# reference tools in every round at 10^7 and in the first only at 10^8 (the
# 10^8 files take ~5.5 GB of disk, awk ~8 GB of memory and up to an hour a
# run on 2 cores). --rounds and --ref-rounds override these.
#
# Each round runs every command once, alternating their order, with the input
# in the page cache (one cat first). Reported: median wall time (min..max),
# MB/s and records/s of the median, peak RSS (GNU time; for `sort | uniq` the
# larger of the two processes), and each ratio to bloomsimd computed within a
# round: median, range, and over the quietest tenth of the rounds (least total
# time). dedup's false positives: distinct records (the generator counts its
# ids) minus the records bloomsimd printed. Timings are reported, never asserted.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
build=${BLOOMSIMD_BUILD_DIR:-$root/build} # scripts/bench.sh sets it
records=""
rounds=""
ref_rounds=""
full=0
short=0
keep=0
only=all
work=""
md=""
while [ $# -gt 0 ]; do
  case $1 in
    --full) full=1 ;;
    --short) short=1 ;;
    --records) records=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --ref-rounds) ref_rounds=$2; shift ;;
    --build) build=$2; shift ;;
    --dir) work=$2; shift ;;
    --md) md=$2; shift ;;
    --keep) keep=1 ;;
    --only) only=$2; shift ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cli_bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$records" ]; then
  if [ $full = 1 ]; then records=1e7,1e8; else records=1e6 rounds=${rounds:-3} ref_rounds=${ref_rounds:-1}; fi
fi
BS=$build/cli/bloomsimd
GEN=$build/cli/bloomsimd-gen-records
for tool in "$BS" "$GEN" /usr/bin/time; do
  [ -x "$tool" ] || { echo "cli_bench.sh: $tool not found (build first: cmake --build $build)" >&2; exit 2; }
done
work=${work:-$(mktemp -d "${TMPDIR:-/tmp}/bloomsimd-cli-bench.XXXXXX")}
mkdir -p "$work"
[ $keep = 1 ] || trap 'rm -rf "$work"' EXIT
export LC_ALL=C
out=$work/results.md
: > "$out"

# space: ~37 bytes a mixed record + 17 a 16-byte record (+ sort's temporary files)
need_disk() { # N
  local n=$1 need_kb avail_kb
  need_kb=$(awk -v n="$n" 'BEGIN { printf "%d", n * (37 + 17 + 40) / 1024 }')
  avail_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
  if [ "$avail_kb" -lt "$need_kb" ]; then
    echo "cli_bench.sh: $work has $((avail_kb / 1048576)) GiB free, N=$n needs about $((need_kb / 1048576)) GiB" >&2
    exit 2
  fi
}

# measure NAME CMD...: one timed run; appends "name seconds maxrss_kb" to
# $work/times. Wall time from bash's microsecond clock (GNU time's %e has
# 10 ms steps); peak RSS from GNU time.
measure() {
  local name=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$work/time.one" "$@" > /dev/null 2> "$work/stderr.one" || {
    echo "cli_bench.sh: '$name' failed:" >&2
    cat "$work/stderr.one" >&2
    exit 1
  }
  t1=$EPOCHREALTIME
  echo "$name $round $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }') $(tail -1 "$work/time.one")" >> "$work/times"
}

# summarize MODE TITLE BYTES RECORDS BASELINE NAME...: a markdown table of
# the names' medians and spreads, with per-round ratios to the baseline:
#   speedup  name's time / baseline's time (how many times slower than bloomsimd),
#            and name's peak RSS / baseline's
#   floor    baseline's time / name's time = the share of the floor's MB/s reached
summarize() {
  local mode=$1 title=$2 bytes=$3 nrec=$4 base=$5
  shift 5
  SHORT=$short /usr/bin/python3 - "$work/times" "$mode" "$bytes" "$nrec" "$base" "$title" "$@" >> "$out" <<'PY'
import os, sys, statistics as st
path, mode, nbytes, nrec, base, title = sys.argv[1:7]
names = sys.argv[7:]
short = os.environ.get("SHORT") == "1"
nbytes, nrec = float(nbytes), float(nrec)
labels = {"bs_dedup": "bloomsimd dedup", "sort_u": "sort -u", "awk": "awk '!seen[$0]++'",
          "sort_uniq": "sort | uniq", "cat": "cat > /dev/null", "bs_add": "bloomsimd add",
          "bs_query_c": "bloomsimd query -c", "bs_query": "bloomsimd query"}
runs = {}   # name -> {round: (seconds, rss_kb)}
for line in open(path):
    name, rnd, secs, rss = line.split()
    runs.setdefault(name, {})[int(rnd)] = (float(secs), int(rss))
if short:
    # one line: the base command's time, then each other command against it,
    # ratios within a round, median over the rounds
    def ratio(name):
        pairs = [(runs[name][k][0], runs[base][k][0]) for k in sorted(runs[name]) if k in runs[base]]
        return st.median([a / b for a, b in pairs])
    bt = st.median([s for s, _ in runs[base].values()])
    # (at most ~100 columns a line: the main job's output is read on a terminal)
    if mode == "speedup":
        parts = [f"{labels[n]} {ratio(n):.1f}x" for n in names if n != base]
        rss = max(r for _, r in runs[base].values()) / 1024
        print(f"  {title.split(';')[0]}:")
        print(f"    {labels[base]} {bt:.2f} s, {rss:.0f} MB peak RSS")
        print("    time against bloomsimd's: " + ", ".join(parts))
    else:
        parts = [f"{labels[n].replace('bloomsimd ', '') if i else labels[n]} {100 / ratio(n):.0f}%"
                 for i, n in enumerate(n for n in names if n != base)]
        print(f"  {title.split(',')[0]}: cat {nbytes / bt / 1e6:.0f} MB/s; " + ", ".join(parts) + " of that")
    sys.exit(0)
print(f"\n**{title}** ({nbytes / 1e6:.0f} MB, {len(runs[base])} rounds)\n")
def quiet(pairs):
    """the ratio over the quietest tenth of the rounds (least total time), at least one round"""
    pairs = sorted(pairs, key=lambda p: p[0] + p[1])
    q = pairs[:max(1, (len(pairs) + 9) // 10)]
    return st.median([a / b for a, b in q])
if mode == "speedup":
    print("| command | wall s, median (min..max) | MB/s | M records/s | peak RSS MB | time / bloomsimd's: median (range), quietest tenth | RSS / bloomsimd's |")
    print("|---|---|---|---|---|---|---|")
else:
    print("| command | wall s, median (min..max) | MB/s | M records/s | peak RSS MB | % of cat's MB/s: median (range), quietest tenth |")
    print("|---|---|---|---|---|---|")
base_rss = max(r for _, r in runs[base].values())
for name in names:
    t = [s for s, _ in runs[name].values()]
    rss = max(r for _, r in runs[name].values())
    med = st.median(t)
    row = f"| `{labels[name]}` | {med:.3f} ({min(t):.3f}..{max(t):.3f}), {len(t)} run{'s' if len(t) > 1 else ''} | {nbytes / med / 1e6:.0f} | {nrec / med / 1e6:.2f} | {rss / 1024:.0f} |"
    pairs = [(runs[name][k][0], runs[base][k][0]) for k in sorted(runs[name]) if k in runs[base]]
    if mode == "speedup":
        r = sorted(a / b for a, b in pairs)
        row += f" {st.median(r):.1f}x ({r[0]:.1f}..{r[-1]:.1f}), {quiet(pairs):.1f}x | {rss / base_rss:.1f}x |" if name != base else " 1 | 1 |"
    else:
        r = sorted(100 * b / a for a, b in pairs)
        row += f" {st.median(r):.0f}% ({r[0]:.0f}..{r[-1]:.0f}), {100 / quiet(pairs):.0f}% |" if name != base else " 100% |"
    print(row)
PY
}

# one_run NAME: runs the named command once on the current files
one_run() {
  case $1 in
    bs_dedup) measure bs_dedup "$BS" dedup --capacity "$count" --fpr 1e-4 "$mixed" ;;
    sort_u) measure sort_u sort -u "$mixed" ;;
    awk) measure awk awk '!seen[$0]++' "$mixed" ;;
    sort_uniq) measure sort_uniq sh -c 'sort "$1" | uniq' sh "$mixed" ;;
    cat) measure cat cat "$file" ;;
    bs_add) cp "$work/empty.bsf" "$work/add.bsf" && measure bs_add "$BS" add "$work/add.bsf" "$file" ;;
    bs_query_c) measure bs_query_c "$BS" query -c "$work/f.bsf" "$file" ;;
    bs_query) measure bs_query "$BS" query "$work/f.bsf" "$file" ;;
  esac
}

# rounds_of R K NAME...: R rounds, odd ones forwards, even ones backwards;
# names other than bloomsimd's and cat run only in the first K rounds
rounds_of() {
  local r=$1 k=$2 i j
  shift 2
  local names=("$@") order=()
  : > "$work/times"
  for i in $(seq "$r"); do
    round=$i
    order=()
    for ((j = 0; j < ${#names[@]}; j++)); do
      case ${names[$j]} in bs_* | cat) order+=("${names[$j]}") ;; *) [ "$i" -le "$k" ] && order+=("${names[$j]}") ;; esac
    done
    if [ $((i % 2)) = 1 ]; then
      for ((j = 0; j < ${#order[@]}; j++)); do one_run "${order[$j]}"; done
    else
      for ((j = ${#order[@]} - 1; j >= 0; j--)); do one_run "${order[$j]}"; done
    fi
  done
}

for n in ${records//,/ }; do
  count=$(awk -v n="$n" 'BEGIN { printf "%d", n }')
  need_disk "$count"
  r=${rounds:-$([ "$count" -ge 100000000 ] && echo 3 || echo 5)}
  round=0
  mixed=$work/mixed.$n.txt
  fixed=$work/fixed16.$n.txt
  echo "== N=$n: generating $mixed and $fixed" >&2
  "$GEN" "$count" --min 8 --max 64 --repeat 0.3 --seed 1 > "$mixed" 2> "$work/gen.err"
  distinct=$(sed -n 's/.*records, \([0-9]*\) distinct/\1/p' "$work/gen.err")
  "$GEN" "$count" --min 16 --max 16 --repeat 0 --seed 2 > "$fixed" 2> /dev/null
  mbytes=$(stat -c %s "$mixed")
  fbytes=$(stat -c %s "$fixed")

  if [ "$only" != addquery ]; then
    "$BS" dedup --capacity "$count" --fpr 1e-4 "$mixed" | wc -l > "$work/bs.count"
    dropped=$((distinct - $(cat "$work/bs.count")))
    k=${ref_rounds:-$([ "$count" -ge 100000000 ] && echo 1 || echo "$r")}
    echo "== N=$n: dedup, $r rounds (the reference tools in $k)" >&2
    cat "$mixed" > /dev/null
    rounds_of "$r" "$k" bs_dedup sort_u awk sort_uniq
    summarize speedup "dedup: $n records of 8..64 bytes, 30% repeats ($distinct distinct); bloomsimd --capacity $n --fpr 1e-4 dropped $dropped new records as false positives" \
      "$mbytes" "$count" bs_dedup bs_dedup sort_u awk sort_uniq
  fi

  for kind in fixed mixed; do
    [ "$only" != dedup ] || break
    echo "== N=$n: add/query on $kind, $r rounds" >&2
    file=$([ $kind = fixed ] && echo "$fixed" || echo "$mixed")
    bytes=$([ $kind = fixed ] && echo "$fbytes" || echo "$mbytes")
    "$BS" create "$work/empty.bsf" --capacity "$count" --fpr 0.01 --force
    cp "$work/empty.bsf" "$work/f.bsf" && "$BS" add "$work/f.bsf" "$file"
    cat "$file" > /dev/null
    rounds_of "$r" "$r" cat bs_add bs_query_c bs_query
    what=$([ $kind = fixed ] && echo "16-byte records" || echo "records of 8..64 bytes")
    summarize floor "add/query: $n $what, filter for $n at 1% (query: every record present)" \
      "$bytes" "$count" cat cat bs_add bs_query_c bs_query
  done
  rm -f "$mixed" "$fixed" "$work"/*.bsf
done

[ $short = 0 ] || {
  echo "bloomsimd command against the usual tools, wall time, $r round$([ "$r" = 1 ] || echo s) (tables: bash cli/bench/cli_bench.sh)"
  cat "$out"
  exit 0
}
{
  echo
  echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), kernel $("$BS" --version | sed 's/.*kernel //; s/)//')."
  echo "Tools: $(sort --version | head -1), awk = $(readlink -f "$(command -v awk)"), LC_ALL=C."
} >> "$out"
cat "$out"
[ -z "$md" ] || cp "$out" "$md"
