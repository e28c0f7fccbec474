#!/usr/bin/env bash
# Load one GraphQL operation on one server with wrk, the same way for every
# server, and print (and append to a TSV) what it measured.
#
#   bench/load.sh -q FILE [-u URL] [-v VARS] [-a AUTH] [-d S] [-c N] [-t N] [-w S] [-p PID] [-l LABEL] [-o TSV]
#     -q  the operation: FILE.graphql (variables from -v or FILE.vars.json)
#         or a ready JSON request body
#     -u  the endpoint ($PGL_URL)            -a  an Authorization value (or AUTH=)
#     -d  seconds measured ($BENCH_DURATION)  -c  connections ($BENCH_CONNECTIONS)
#     -t  wrk threads ($BENCH_THREADS)        -w  warm-up seconds, not measured ($BENCH_WARMUP)
#     -p  the server's pid: its peak RSS and CPU seconds over the measured run
#     -l  the row's label                     -o  the TSV to append a row to
#
# It first sends the request once and loads nothing unless the answer has
# data and no errors: a load of refusals would measure the wrong thing.
set -euo pipefail
. "$(dirname "$0")/env.sh"

url="$PGL_URL" qfile="" vfile="" auth="${AUTH:-}" pid="" label="" out=""
dur="$BENCH_DURATION" conns="$BENCH_CONNECTIONS" threads="$BENCH_THREADS" warm="$BENCH_WARMUP"
while getopts "u:q:v:a:d:c:t:w:p:l:o:h" opt; do
  case "$opt" in
    u) url="$OPTARG" ;; q) qfile="$OPTARG" ;; v) vfile="$OPTARG" ;; a) auth="$OPTARG" ;;
    d) dur="$OPTARG" ;; c) conns="$OPTARG" ;; t) threads="$OPTARG" ;; w) warm="$OPTARG" ;;
    p) pid="$OPTARG" ;; l) label="$OPTARG" ;; o) out="$OPTARG" ;;
    *) sed -n '2,15p' "$0" >&2; exit 2 ;;
  esac
done
[ -f "$qfile" ] || { echo "load.sh: -q FILE: no such file '$qfile'" >&2; exit 2; }
command -v wrk >/dev/null || { echo "load.sh: wrk is missing: apt-get install -y wrk" >&2; exit 1; }
loopback_only "$url"
label="${label:-$(basename "$qfile")}"

body="$(mktemp /tmp/bench-body.XXXXXX)"
rss_file="$(mktemp /tmp/bench-rss.XXXXXX)"
trap 'rm -f "$body" "$rss_file"' EXIT
case "$qfile" in
  *.json) cp "$qfile" "$body" ;;
  *)
    if [ -z "$vfile" ] && [ -f "${qfile%.graphql}.vars.json" ]; then vfile="${qfile%.graphql}.vars.json"; fi
    if [ -n "$vfile" ]; then jq -c -n --rawfile q "$qfile" --slurpfile v "$vfile" '{query: $q, variables: $v[0]}' >"$body"
    else jq -c -n --rawfile q "$qfile" '{query: $q}' >"$body"; fi ;;
esac

headers=(-H 'Content-Type: application/json' -H 'Accept: application/graphql-response+json, application/json')
[ -z "$auth" ] || headers+=(-H "Authorization: $auth")
first="$(curl -sS -m 30 -X POST "${headers[@]}" --data-binary @"$body" "$url" </dev/null)"
echo "== $label -> $url"
echo "   first answer: ${first:0:300}"
jq -e '.data != null and .errors == null' >/dev/null 2>&1 <<<"$first" ||
  { echo "load.sh: the first answer has no data or has errors: not loading" >&2; exit 1; }

export WRK_BODY_FILE="$body" WRK_AUTH="$auth"
lua="$BENCH_DIR/post.lua"
if [ "$warm" -gt 0 ]; then wrk -t"$threads" -c"$conns" -d"${warm}s" --timeout 10s -s "$lua" "$url" >/dev/null </dev/null; fi

# The server's CPU seconds over the run, and its RSS sampled every 0.5 s.
cpu0="" sampler=""
if [ -n "$pid" ]; then
  cpu0="$(awk '{print $14 + $15}' "/proc/$pid/stat")"
  ( end=$(( SECONDS + dur + 2 ))
    while [ $SECONDS -lt $end ] && [ -r "/proc/$pid/status" ]; do
      awk '/^VmRSS/ {print $2}' "/proc/$pid/status" >>"$rss_file"; sleep 0.5
    done ) &
  sampler=$!
fi

raw="$(wrk -t"$threads" -c"$conns" -d"${dur}s" --timeout 10s -s "$lua" "$url" </dev/null)"
result="$(grep '^RESULT' <<<"$raw" || true)"
[ -n "$result" ] || { echo "$raw" >&2; echo "load.sh: wrk printed no RESULT line" >&2; exit 1; }

rss="" cpu=""
if [ -n "$pid" ]; then
  cpu="$(awk -v a="$cpu0" -v b="$(awk '{print $14 + $15}' "/proc/$pid/stat")" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", (b - a) / hz}')"
  wait "$sampler" 2>/dev/null || true
  rss="$(sort -n "$rss_file" | tail -1 | awk '{printf "%.0f", $1 / 1024}')"
fi

field() { sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<" $result"; }
rps="$(field rps)" p50="$(field p50_ms)" p90="$(field p90_ms)" p99="$(field p99_ms)"
non2xx="$(field non2xx)" gqlerr="$(field gql_errors)" sockerr="$(field socket_errors)" reqs="$(field requests)"
printf '   %-28s rps=%-9s p50=%-8s p99=%-8s non2xx=%s gql_errors=%s socket_errors=%s requests=%s%s\n' \
  "$label" "$rps" "${p50}ms" "${p99}ms" "$non2xx" "$gqlerr" "$sockerr" "$reqs" \
  "${pid:+ server_rss_max=${rss}MiB server_cpu=${cpu}s}"

if [ -n "$out" ]; then
  [ -s "$out" ] || printf 'time\tlabel\turl\tduration_s\tconnections\trps\tp50_ms\tp90_ms\tp99_ms\tnon2xx\tgql_errors\tsocket_errors\tserver_rss_max_mib\tserver_cpu_s\n' >"$out"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$label" "$url" "$dur" "$conns" \
    "$rps" "$p50" "$p90" "$p99" "$non2xx" "$gqlerr" "$sockerr" "$rss" "$cpu" >>"$out"
fi
