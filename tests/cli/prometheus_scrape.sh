#!/bin/sh
# prometheus_scrape.sh IPCC: end to end. ipcc stat --format openmetrics -o writes into
# node_exporter's textfile folder; a real Prometheus on loopback scrapes node_exporter (the
# Prometheus text parser) and, as a second job, the same exposition served as
# application/openmetrics-text (its OpenMetrics parser); the metrics arrive with their
# labels, as Prometheus's HTTP API shows. Debian packages prometheus and
# prometheus-node-exporter; skipped without them. Bounded: at most `limit` seconds of
# waiting; every process started here is killed and reaped on exit.
set -eu
ipcc=$1
limit=90
for tool in prometheus prometheus-node-exporter curl jq python3; do
    command -v $tool >/dev/null 2>&1 ||
        { echo "skipped: no $tool (apt-get install prometheus prometheus-node-exporter curl jq)"; exit 77; }
done
dir=$(mktemp -d)
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || :; done
    for p in $pids; do wait "$p" 2>/dev/null || :; done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ne_port=$(free_port) om_port=$(free_port) prom_port=$(free_port)

mkdir "$dir/textfile"
tag="ipcc-scrape-$$"
"$ipcc" stat --format openmetrics -o "$dir/textfile/ipcc.prom" -- sh -c true "$tag"
cp "$dir/textfile/ipcc.prom" "$dir/om.txt"

prometheus-node-exporter --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$dir/textfile" --web.listen-address="127.0.0.1:$ne_port" \
    >"$dir/node_exporter.log" 2>&1 &
pids="$pids $!"
# The exposition as application/openmetrics-text, for Prometheus's OpenMetrics parser.
python3 - "$om_port" "$dir/om.txt" >"$dir/om_server.log" 2>&1 <<'PY' &
import http.server, sys
body = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
pids="$pids $!"
cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: node
    static_configs: [ { targets: [ "127.0.0.1:$ne_port" ] } ]
  - job_name: openmetrics
    static_configs: [ { targets: [ "127.0.0.1:$om_port" ] } ]
YML
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$dir/prometheus.log" 2>&1 &
pids="$pids $!"

query() { # PromQL -> the result array, or nothing
    curl -sf --max-time 5 "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" |
        jq -c '.data.result' 2>/dev/null || :
}
# Wait (at most `limit` seconds) for both jobs' samples.
sel="command=\"sh -c true $tag\""
i=0
while :; do
    node=$(query "ipcc_elapsed_seconds{job=\"node\",$sel}")
    om=$(query "ipcc_task_clock_seconds_total{job=\"openmetrics\",$sel}")
    [ -n "$node" ] && [ "$node" != "[]" ] && [ -n "$om" ] && [ "$om" != "[]" ] && break
    i=$((i + 1))
    if [ $i -ge $limit ]; then
        echo "no ipcc metrics in Prometheus after ${limit}s (node: ${node:-none}; openmetrics: ${om:-none})"
        echo "--- prometheus.log"; tail -n 20 "$dir/prometheus.log"
        echo "--- node_exporter.log"; tail -n 20 "$dir/node_exporter.log"
        curl -s --max-time 5 "http://127.0.0.1:$prom_port/api/v1/targets" | jq -c '.data.activeTargets[] | {job: .labels.job, health, lastError}' || :
        exit 1
    fi
    sleep 1
done
echo "$node" | jq -e --arg cpu "$(sed -n 's/.*cpu_model="\([^"]*\)".*/\1/p' "$dir/om.txt" | head -n 1)" '
    length == 1 and (.[0].metric | .cpu_model == $cpu and (.recipe | length > 0) and
        (.backend == "perf" or .backend == "time")) and (.[0].value[1] | tonumber > 0)
' >/dev/null || { echo "node job: unexpected labels or value: $node"; exit 1; }
echo "$om" | jq -e 'length == 1 and (.[0].value[1] | tonumber >= 0)' >/dev/null ||
    { echo "openmetrics job: unexpected: $om"; exit 1; }
# The counts and the absent counters' reasons arrive too (through node_exporter).
pf=$(query "ipcc_count_total{job=\"node\",counter=\"page_faults\",$sel}")
echo "$pf" | jq -e 'length == 1' >/dev/null || { echo "no page_faults count: $pf"; exit 1; }
if grep -q '^ipcc_absent_info' "$dir/om.txt"; then
    ab=$(query "ipcc_absent_info{job=\"node\",$sel}")
    echo "$ab" | jq -e 'length > 0 and all(.[]; .metric.reason | length > 0)' >/dev/null ||
        { echo "no ipcc_absent_info with reasons: $ab"; exit 1; }
fi
echo "ok: Prometheus scraped ipcc's metrics through node_exporter and as OpenMetrics"
echo "$node" | jq -c '.[0].metric'
