#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Regenerate the capture files in test/data/ from real traffic between two
# network namespaces joined by a veth pair. Nothing leaves the namespaces:
# every program talks only to the other namespace's addresses.
#
#   test/data/make-sample.sh [OUTDIR]     (root; default OUTDIR: this folder)
#
# Files written:
#   sample.pcap          Ethernet, mixed traffic from three links (the demo input):
#                        ARP, ICMP echo, ICMPv6 echo + NDP + MLD (hop-by-hop
#                        header), fragmented ICMPv6 (fragment header), HTTP
#                        over TCP on IPv4 and IPv6 (python3 http.server +
#                        curl), DNS over UDP (dnsmasq + dig), UDP with nc,
#                        802.1Q frames (VLAN 100) and QinQ frames
#                        (802.1ad 200 + 802.1Q 300)
#   sample.pcapng        sample.pcap converted to pcapng (editcap)
#   jumbo.pcap           MTU 9000 veth: frames above a 2 KiB mbuf data room
#   snapped.pcap         HTTP and ICMP, cut to 96 bytes a frame (editcap -s 96)
#   linux-cooked.pcap    captured on "any": link type LINUX_SLL2 (not Ethernet)
#   empty.pcap           0 bytes
#   header-only.pcap     a valid pcap header and no packet
#   truncated.pcap       the first 10007 bytes of sample.pcap (cut inside a record)
#   corrupt-header.pcap  the first 2000 bytes of sample.pcap, magic number zeroed
#   corrupt-record.pcap  two records of sample.pcap, then a record header claiming
#                        200000 bytes (above the snaplen) and 64 bytes of data
#
# Needs: iproute2, tcpdump, python3, curl, dnsmasq, dig, nc (openbsd),
# ping, ethtool (config/packages/capture.txt).
set -eu

OUT=${1:-$(dirname "$0")}
OUT=$(cd "$OUT" && pwd)
TAG=gpudp$$
A=${TAG}a
B=${TAG}b
WORK=$(mktemp -d)
PIDS=""

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	sleep 0.3
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

ina() { ip netns exec "$A" "$@"; }
inb() { ip netns exec "$B" "$@"; }

# tag_frames IN OUT OUTER [INNER]: insert an 802.1Q tag (or an 802.1ad S-tag
# OUTER plus an 802.1Q C-tag INNER) after the MAC addresses of every frame of
# a classic pcap file; lengths grow by 4 bytes per tag.
tag_frames() {
	python3 - "$@" <<'PYEOF'
import struct, sys
src, dst, tags = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3:]]
data = open(src, "rb").read()
e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
if len(tags) == 1:
    ins = struct.pack(">HH", 0x8100, tags[0])
else:
    ins = struct.pack(">HHHH", 0x88a8, tags[0], 0x8100, tags[1])
out = bytearray(data[:24])
off = 24
while off + 16 <= len(data):
    sec, frac, cap, wire = struct.unpack_from(e + "IIII", data, off)
    pkt = data[off + 16:off + 16 + cap]
    off += 16 + cap
    pkt = pkt[:12] + ins + pkt[12:]
    out += struct.pack(e + "IIII", sec, frac, cap + len(ins), wire + len(ins)) + pkt
open(dst, "wb").write(out)
PYEOF
}

# setup_pair MTU: fresh namespaces, veth va (in A) <-> vb (in B), offloads off
# so that captured frames are real MTU-sized frames, not GSO super-frames.
setup_pair() {
	ip netns add "$A"
	ip netns add "$B"
	ip link add va netns "$A" type veth peer name vb netns "$B"
	for ns in "$A" "$B"; do
		ip netns exec "$ns" ip link set lo up
	done
	ina ip link set va mtu "$1"
	inb ip link set vb mtu "$1"
	ina ethtool -K va tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
	inb ethtool -K vb tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
	ina ip addr add 10.77.0.1/24 dev va
	inb ip addr add 10.77.0.2/24 dev vb
	ina ip -6 addr add fd77::1/64 dev va nodad
	inb ip -6 addr add fd77::2/64 dev vb nodad
}

teardown_pair() {
	ip netns del "$A"
	ip netns del "$B"
}

# start_capture FILE ARGS...: tcpdump in B on vb, waits until it listens
start_capture() {
	f=$1
	shift
	rm -f "$WORK/tcpdump.log"
	ip netns exec "$B" tcpdump -i vb --immediate-mode -U -n "$@" -w "$f" >"$WORK/tcpdump.log" 2>&1 &
	CAP=$!
	PIDS="$PIDS $CAP"
	for _ in $(seq 50); do
		grep -q listening "$WORK/tcpdump.log" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "tcpdump did not start:" >&2
	cat "$WORK/tcpdump.log" >&2
	exit 1
}

stop_capture() {
	sleep 0.5
	kill -TERM "$CAP"
	wait "$CAP" || true
}

# ---------------------------------------------------------------- sample.pcap
# Three links, each captured on B's side, merged in time order:
#   va/vb    10.77.0.0/24, fd77::/64    untagged
#   va1/vb1  10.77.100.0/24             802.1Q VLAN 100
#   va2/vb2  10.77.200.0/24             QinQ: 802.1ad S-tag 200, 802.1Q C-tag 300
# With the kernel's 8021q support the addresses sit on VLAN sub-interfaces
# and the kernel tags the frames. Without it (containers whose kernel has no
# 8021q, no VLAN-filtering bridge and no act_vlan), the addresses sit on the
# veths and the frames captured there get their tags inserted afterwards
# (tag_frames below); everything else in them is as captured.
setup_pair 1500
ina ip link add va1 type veth peer name vb1 netns "$B"
ina ip link add va2 type veth peer name vb2 netns "$B"
for i in va1 va2; do ina ethtool -K $i tso off gso off gro off tx off rx off >/dev/null 2>&1 || true; done
for i in vb1 vb2; do inb ethtool -K $i tso off gso off gro off tx off rx off >/dev/null 2>&1 || true; done
if ina ip link add link va1 name va1.100 type vlan id 100 2>/dev/null; then
	KERNEL_VLAN=1
	inb ip link add link vb1 name vb1.100 type vlan id 100
	ina ip link add link va2 name va2.200 type vlan proto 802.1ad id 200
	inb ip link add link vb2 name vb2.200 type vlan proto 802.1ad id 200
	ina ip link add link va2.200 name va2.300 type vlan id 300
	inb ip link add link vb2.200 name vb2.300 type vlan id 300
	ina ip link set va2.200 mtu 1496
	inb ip link set vb2.200 mtu 1496
	ina ip link set va2.300 mtu 1492
	inb ip link set vb2.300 mtu 1492
	V1A=va1.100 V1B=vb1.100 V2A=va2.300 V2B=vb2.300
else
	KERNEL_VLAN=0
	echo "make-sample: no 802.1Q support in this kernel: tags are inserted after capture" >&2
	ina ip link set va2 mtu 1492
	inb ip link set vb2 mtu 1492
	V1A=va1 V1B=vb1 V2A=va2 V2B=vb2
fi
ina ip addr add 10.77.100.1/24 dev $V1A
inb ip addr add 10.77.100.2/24 dev $V1B
ina ip addr add 10.77.200.1/24 dev $V2A
inb ip addr add 10.77.200.2/24 dev $V2B
ina ip -6 addr flush dev $V1A
inb ip -6 addr flush dev $V1B
ina ip -6 addr flush dev $V2A
inb ip -6 addr flush dev $V2B
inb ip link set vb up
for i in vb1 vb2 vb1.100 vb2.200 vb2.300; do inb ip link set $i up 2>/dev/null || true; done
start_capture "$WORK/main.pcap"
CAP0=$CAP
ip netns exec "$B" tcpdump -i vb1 --immediate-mode -U -n -w "$WORK/vlan.pcap" >"$WORK/tcpdump1.log" 2>&1 &
CAP1=$!
ip netns exec "$B" tcpdump -i vb2 --immediate-mode -U -n -w "$WORK/qinq.pcap" >"$WORK/tcpdump2.log" 2>&1 &
CAP2=$!
PIDS="$PIDS $CAP1 $CAP2"
sleep 1
ina ip link set va up
for i in va1 va2 va1.100 va2.200 va2.300; do ina ip link set $i up 2>/dev/null || true; done
sleep 1.5   # NDP, MLD reports with hop-by-hop options

# servers in B: HTTP (v4 and v6), DNS, UDP sink
mkdir -p "$WORK/www"
python3 -c 'import sys
sys.stdout.write("".join("line %05d of the gpudp sample page\n" % i for i in range(900)))' \
	>"$WORK/www/page.txt"
printf 'hello from the gpudp sample\n' >"$WORK/www/index.html"
(cd "$WORK/www" && exec ip netns exec "$B" python3 -m http.server --bind 10.77.0.2 8080) \
	>/dev/null 2>&1 &
PIDS="$PIDS $!"
(cd "$WORK/www" && exec ip netns exec "$B" python3 -m http.server --bind fd77::2 8081) \
	>/dev/null 2>&1 &
PIDS="$PIDS $!"
(cd "$WORK/www" && exec ip netns exec "$B" python3 -m http.server --bind 10.77.100.2 8082) \
	>/dev/null 2>&1 &
PIDS="$PIDS $!"
ip netns exec "$B" dnsmasq --keep-in-foreground --no-resolv --no-hosts \
	--listen-address=10.77.0.2 --listen-address=fd77::2 --bind-interfaces --port=53 \
	--pid-file="$WORK/dnsmasq.pid" --user=root \
	--address=/sample.gpudp.test/10.77.0.2 --address=/sample.gpudp.test/fd77::2 \
	>"$WORK/dnsmasq.log" 2>&1 &
PIDS="$PIDS $!"
ip netns exec "$B" nc -u -l -k 10.77.0.2 9999 >/dev/null &
PIDS="$PIDS $!"
ip netns exec "$B" nc -u -l -k 10.77.200.2 9998 >/dev/null &
PIDS="$PIDS $!"
sleep 1.5

ina ping -c 3 -w 5 -i 0.2 10.77.0.2 >/dev/null
ina ping -6 -c 3 -w 5 -i 0.2 fd77::2 >/dev/null
ina ping -6 -c 2 -w 5 -i 0.2 -s 2000 fd77::2 >/dev/null       # fragment header
ina curl -s -o /dev/null http://10.77.0.2:8080/index.html
ina curl -s -o /dev/null http://10.77.0.2:8080/page.txt
ina curl -s -o /dev/null 'http://[fd77::2]:8081/page.txt'
ina dig +short +tries=1 +time=2 @10.77.0.2 sample.gpudp.test A >/dev/null
ina dig +short +tries=1 +time=2 @10.77.0.2 sample.gpudp.test AAAA >/dev/null
ina dig +short +tries=1 +time=2 @fd77::2 sample.gpudp.test AAAA >/dev/null
for i in 1 2 3 4 5; do
	echo "udp datagram $i from the gpudp sample" | ina nc -u -w 0 10.77.0.2 9999
	sleep 0.05
done
ina ping -c 2 -w 5 -i 0.2 10.77.100.2 >/dev/null                  # 802.1Q
ina curl -s -o /dev/null http://10.77.100.2:8082/index.html  # TCP in 802.1Q
ina ping -c 2 -w 5 -i 0.2 10.77.200.2 >/dev/null                  # QinQ
for i in 1 2 3; do
	echo "qinq datagram $i" | ina nc -u -w 0 10.77.200.2 9998
	sleep 0.05
done
sleep 0.5
kill -TERM "$CAP1" "$CAP2"
wait "$CAP1" "$CAP2" || true
CAP=$CAP0
stop_capture
teardown_pair
if [ "$KERNEL_VLAN" = 0 ]; then
	tag_frames "$WORK/vlan.pcap" "$WORK/vlan-t.pcap" 100
	tag_frames "$WORK/qinq.pcap" "$WORK/qinq-t.pcap" 200 300
	mv "$WORK/vlan-t.pcap" "$WORK/vlan.pcap"
	mv "$WORK/qinq-t.pcap" "$WORK/qinq.pcap"
fi
mergecap -F pcap -w "$WORK/sample.pcap" "$WORK/main.pcap" "$WORK/vlan.pcap" "$WORK/qinq.pcap"

# ----------------------------------------------------------------- snapped.pcap
setup_pair 1500
inb ip link set vb up
ina ip link set va up
(cd "$WORK/www" && exec ip netns exec "$B" python3 -m http.server --bind 10.77.0.2 8080) \
	>/dev/null 2>&1 &
PIDS="$PIDS $!"
sleep 1.5
start_capture "$WORK/snapped-full.pcap"
ina ping -c 2 -w 5 -i 0.2 -s 600 10.77.0.2 >/dev/null
ina curl -s -o /dev/null http://10.77.0.2:8080/page.txt
stop_capture
teardown_pair
# tcpdump -s 96 captures nothing under some container kernels: snap afterwards
editcap -F pcap -s 96 "$WORK/snapped-full.pcap" "$WORK/snapped.pcap"

# ------------------------------------------------------------------ jumbo.pcap
setup_pair 9000
inb ip link set vb up
ina ip link set va up
sleep 1
start_capture "$WORK/jumbo.pcap" ip
ina ping -c 3 -w 5 -i 0.2 -s 8000 10.77.0.2 >/dev/null
ina ping -c 2 -w 5 -i 0.2 -s 3000 10.77.0.2 >/dev/null
ina ping -c 2 -w 5 -i 0.2 -s 100 10.77.0.2 >/dev/null
stop_capture

# ----------------------------------------------------------- linux-cooked.pcap
ip netns exec "$A" tcpdump -i any --immediate-mode -U -n -w "$WORK/linux-cooked.pcap" \
	>"$WORK/tcpdump.log" 2>&1 &
CAP=$!
PIDS="$PIDS $CAP"
sleep 1
ina ping -c 2 -w 5 -i 0.2 10.77.0.2 >/dev/null
stop_capture
teardown_pair

# ------------------------------------------------------- files made from those
cp "$WORK/sample.pcap" "$WORK/jumbo.pcap" "$WORK/snapped.pcap" \
	"$WORK/linux-cooked.pcap" "$OUT/"
editcap -F pcapng "$WORK/sample.pcap" "$OUT/sample.pcapng"
: >"$OUT/empty.pcap"
head -c 24 "$WORK/sample.pcap" >"$OUT/header-only.pcap"
head -c 10007 "$WORK/sample.pcap" >"$OUT/truncated.pcap"
python3 - "$WORK/sample.pcap" "$OUT" <<'EOF'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
data = bytearray(open(src, "rb").read())
bad = bytearray(data[:2000])
bad[0:4] = b"\x00\x00\x00\x00"
open(out + "/corrupt-header.pcap", "wb").write(bad)
# third record: its captured length becomes 200000 (above any snaplen)
endian = "<" if data[0:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
off = 24
for _ in range(2):
    caplen = struct.unpack_from(endian + "I", data, off + 8)[0]
    off += 16 + caplen
rec = bytearray(data[:off + 16 + 64])
struct.pack_into(endian + "I", rec, off + 8, 200000)
open(out + "/corrupt-record.pcap", "wb").write(rec)
EOF
ls -l "$OUT"/*.pcap
