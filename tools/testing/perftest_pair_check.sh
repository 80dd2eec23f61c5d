#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest_pair (selftests/metaroce/lib.sh), on the host, with a stand-in for perftest: a
# refused client is tried again with a fresh server, the refused run's server does not
# outlive it, and a failure of another kind is not retried. TAP output; run by
# tools/testing/run-tests.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$top/selftests/metaroce/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FAKE_STATE=$tmp
PERFTEST_PORT_FILE=$tmp/port
echo 31000 >"$PERFTEST_PORT_FILE"

# The stand-in: with an address as last argument a client, else a server; -p PORT. A server
# records its pid, listens on PORT (127.0.0.1), takes one connection and exits 0. A client
# is refused as perftest's is while $FAKE_STATE/refuse counts down, fails otherwise if
# $FAKE_STATE/fail exists, else connects.
fake=$tmp/fake_perftest
cat >"$fake" <<'FAKE'
#!/bin/bash
port='' prev=''
for a; do
	[ "$prev" = -p ] && port=$a
	prev=$a
done
case ${!#} in
*.*.*.*)
	left=$(cat "$FAKE_STATE/refuse" 2>/dev/null || echo 0)
	if [ "$left" -gt 0 ]; then
		echo $((left - 1)) >"$FAKE_STATE/refuse"
		echo "Event: RDMA_CM_EVENT_REJECTED; error: 8."
		exit 1
	fi
	[ -e "$FAKE_STATE/fail" ] && { echo "Couldn't allocate MR"; exit 1; }
	exec python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close(); print("connected")' "$port"
	;;
*)
	echo $$ >>"$FAKE_STATE/servers"
	exec python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
s.accept()[0].close()' "$port"
	;;
esac
FAKE
chmod +x "$fake"

# run TRIES REFUSALS [fail]: perftest_pair against the stand-in; sets RC, STARTS (servers
# started) and ALIVE (servers still running).
run() {
	local pid
	rm -f "$tmp/servers" "$tmp/fail"
	echo "$2" >"$tmp/refuse"
	[ $# -gt 2 ] && touch "$tmp/fail"
	RC=0
	perftest_pair "$fake" "$1" "$tmp/server.out" - srv_args - cli_args 127.0.0.1 || RC=$?
	STARTS=$(wc -l <"$tmp/servers")
	ALIVE=0
	while read -r pid; do
		kill -0 "$pid" 2>/dev/null && ALIVE=$((ALIVE + 1))
	done <"$tmp/servers"
}

# is NAME GOT WANT: one test point, ok if GOT is WANT
is() {
	[ "$2" = "$3" ]
	ktap_result "$1" $? "got '$2', want '$3'"
}

# shellcheck disable=SC2034 # read by perftest_pair through namerefs
srv_args=(-d dev_a) cli_args=(-d dev_b)
ktap_plan 13
run 3 0
is "no refusal: the client's status" "$RC" 0
is "no refusal: one server" "$STARTS" 1
is "no refusal: the client's output kept" "$PERFTEST_OUT" connected
run 3 1
is "one refusal: passes on the second try" "$RC" 0
is "one refusal: a second server" "$STARTS" 2
is "one refusal: the refused run's server is gone" "$ALIVE" 0
run 3 5
is "refused every time: fails" "$([ "$RC" -ne 0 ] && echo failed)" failed
is "refused every time: TRIES servers" "$STARTS" 3
is "refused every time: the client's last output kept" "$PERFTEST_OUT" \
	"Event: RDMA_CM_EVENT_REJECTED; error: 8."
is "refused every time: no server left" "$ALIVE" 0
run 3 0 fail
is "another failure: fails" "$([ "$RC" -ne 0 ] && echo failed)" failed
is "another failure: not tried again" "$STARTS" 1
is "another failure: its server is gone" "$ALIVE" 0
ktap_finish
