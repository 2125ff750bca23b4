#!/bin/sh
# format_b_net.sh -- hprof's format=b over net= (docs/hprof.md, "Over a
# socket"): a listener takes the connection, sends HEAP SUMMARY (whose
# answer is text: skipped, with one line on stderr) and EXIT THE VM, and
# keeps every byte until the agent closes the socket.  The stream must walk
# record by record as a format=b file does (hprof_records.py) and hold the
# exit's heap dump and sites: frontend_target.gcl's 1000 Nodes live.
#
#   format_b_net.sh RECORDS_PY -- VMRUN frontend_target.gcl
set -u
records=$1
shift 2
vmrun=$1 program=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# The listener: sends HEAP SUMMARY, EXIT THE VM and EOF, then keeps what arrives.
python3 - "$work" <<'PY' &
import socket, struct, sys
work = sys.argv[1]
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
open(f"{work}/port.tmp", "w").write(str(server.getsockname()[1]))
import os
os.rename(f"{work}/port.tmp", f"{work}/port")
server.settimeout(60)
conn, _ = server.accept()
# The commands once the program has its 1000 Nodes: it says "ready".
import time
for _ in range(600):
    if os.path.exists(f"{work}/net.out") and "ready" in open(f"{work}/net.out").read():
        break
    time.sleep(0.1)
conn.sendall(struct.pack(">BII", 0x04, 1, 0) + struct.pack(">BII", 0x05, 2, 0) + bytes([0xFF]))
with open(f"{work}/stream.hprof", "wb") as out:
    while chunk := conn.recv(65536):
        out.write(chunk)
PY
listener=$!
for _ in $(seq 100); do [ -e "$work/port" ] && break; sleep 0.1; done
[ -e "$work/port" ] || { echo "FAIL: the listener did not start"; exit 1; }
port=$(cat "$work/port")

"$vmrun" --seed=1 -agentlib:hprof=heap=all,format=b,net=127.0.0.1:$port "$program" >"$work/net.out" 2>"$work/net.err" ||
    { cat "$work/net.err"; echo "FAIL: vmrun with net= failed"; exit 1; }
wait $listener || { echo "FAIL: the listener failed"; exit 1; }
grep -q '^hprof: command 0x04 skipped: format=b has no answer for it on the socket$' "$work/net.err" ||
    { cat "$work/net.err"; echo "FAIL: HEAP SUMMARY was not skipped with one line"; exit 1; }
[ "$(head -c 18 "$work/stream.hprof")" = "JAVA PROFILE 1.0.2" ] || { head -c 64 "$work/stream.hprof" | od -c | head -n 4; cat "$work/net.err"; echo "FAIL: the stream has no format=b header"; exit 1; }
python3 "$records" "$work/stream.hprof" >"$work/net.records" || { echo "FAIL: the stream is malformed"; exit 1; }

grep -Eq '^heap_dump [0-9]{4}' "$work/net.records" || { cat "$work/net.records"; echo "FAIL: no heap dump of the 1000 Nodes"; exit 1; }
grep -Eq '^sites [1-9][0-9]* [0-9]{4}' "$work/net.records" || { cat "$work/net.records"; echo "FAIL: no sites of the 1000 Nodes"; exit 1; }
