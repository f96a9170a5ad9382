#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The capture-to-GPU demo (config/setup.sh demo): analyse the bundled
# capture test/data/sample.pcap with gpudp-capture, on the GPU when one is
# usable, else on the CPU with a notice, with payload inspection (the
# patterns of test/data/patterns.txt). The capture is read by the direct
# reader (the default for --pcap: no PMD; the log's "reader:" line and the
# report's input say so). Writes the JSON report and the packets of an
# example filter next to the build.
#
#   app/gpudp-capture/demo.sh [BUILD_DIR]      (default: build)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
app=$build/app/gpudp-capture/gpudp-capture
if [ ! -x "$app" ]; then
	echo "demo: $app is not built (run: ninja -C $build)" >&2
	exit 1
fi
set -x
exec "$app" -l 0 --no-huge -m 512 --no-pci --no-shconf --log-level='lib.*:error' \
	-- --pcap "$top/test/data/sample.pcap" \
	--json "$build/capture-demo.json" --match "$top/test/data/patterns.txt" \
	--filter 'tcp and port 8080' --filter-out "$build/capture-demo-http.pcapng"
