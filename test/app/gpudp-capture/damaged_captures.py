#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Damaged and unusual capture files through both apps (meson suite 'dpdk').

usage: damaged_captures.py gen DIR
       damaged_captures.py run DIR GPUDP_CAPTURE [GPUDP_FWD] [--only SUBSTR]

gen writes every case into DIR (a build directory: the files are never
committed). run generates them and runs every file through gpudp-capture
(--pcap FILE, with --reader pmd and with the direct reader) and, when
given, gpudp-fwd (net_pcap rx_pcap= and tx_pcap=, --mode none). Each run
must end in one of two ways:

  - exit 1 with "gpudp-capture: input error: FILE: <reason>" (gpudp-fwd: a
    non-zero exit naming the file), or
  - exit 0 with the packet count libpcap reads from the file (libpcap
    itself, through ctypes: the library net_pcap and tcpdump read with).
    gpudp-capture must count what libpcap reads up to its first error,
    report a truncated file exactly when that error ends the file, and
    count libpcap's errors in rx_errors, with either reader; gpudp-fwd,
    which does not inspect its input, must forward what net_pcap gets, which
    calls libpcap again after an error (so a corrupt record can be followed
    by records read from the middle of the data).

and never with a sanitizer report. Each case also states what gpudp-capture
must do ('ok' or 'refuse', with a piece of the message), so a file that is
silently accepted, or refused for another reason, fails.

Cases cover: every field of the pcap file and record headers cut short;
lengths over every limit (2^32 - 20, 262145, 266000, snap length); wrong
magic, byte order and versions; pcapng blocks of bad, unaligned, oversized
or mismatched lengths; section headers cut, of other versions or byte
orders; interface options of bad lengths or running past their block; packet
blocks on undeclared interfaces or before any interface; zero-length
records; several sections; more than 64 interfaces; mixed link types and
snap lengths; simple and obsolete packet blocks; unknown blocks.

Prints one line per file and app and "N passed, N failed, N skipped"; exit 1
on any failure.
"""
import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

EAL = ["-l", "0", "--no-huge", "-m", "256", "--no-pci", "--no-shconf", "--log-level=lib.*:error"]

# Known problems of other parts, by case name: (app, why). Remove a mark once
# its fix is merged.
KNOWN = {}

# ------------------------------------------------------------------ frames


def frame(i, size=None):
    """An Ethernet/IPv4/UDP frame, 60 to 1514 bytes, distinct per i."""
    n = size if size is not None else 60 + (i * 37) % 400
    udp_len = max(8, n - 34)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, min(20 + udp_len, 65535), i & 0xffff, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 1 + i % 3, 2]))
    udp = struct.pack("!HHHH", 1000 + i, 53, min(udp_len, 65515), 0)
    f = (bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip + udp +
         bytes((i + k) & 0xff for k in range(udp_len - 8)))
    return f[:n]


FRAMES = [frame(i) for i in range(4)]

# -------------------------------------------------------------------- pcap


def pcap_hdr(e="<", magic=0xa1b2c3d4, ver=(2, 4), snap=262144, lt=1):
    return struct.pack(e + "IHHiIII", magic, ver[0], ver[1], 0, 0, snap, lt)


def pcap_rec(data, e="<", caplen=None, wirelen=None, ts=(1700000000, 5), extra=b""):
    c = len(data) if caplen is None else caplen
    w = len(data) if wirelen is None else wirelen
    return struct.pack(e + "IIII", ts[0], ts[1], c, w) + extra + data


def pcap(frames=FRAMES, e="<", **kw):
    return pcap_hdr(e, **kw) + b"".join(pcap_rec(f, e, ts=(1700000000 + i, i))
                                        for i, f in enumerate(frames))


# ------------------------------------------------------------------ pcapng


def pad4(b):
    return b + bytes(-len(b) % 4)


def opt(code, val, e="<", length=None):
    n = len(val) if length is None else length
    return struct.pack(e + "HH", code, n) + pad4(val)


def block(btype, body, e="<", length=None, trailer=None):
    n = 12 + len(body) if length is None else length
    t = n if trailer is None else trailer
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", t)


def shb(e="<", ver=(1, 0), opts=b"", **kw):
    return block(0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, ver[0], ver[1], -1) + opts,
                 e, **kw)


def idb(e="<", lt=1, snap=0, opts=b"", **kw):
    return block(1, struct.pack(e + "HHI", lt, 0, snap) + opts, e, **kw)


def epb(data, e="<", ifid=0, caplen=None, wirelen=None, ts=0x0005f0000000000, opts=b"",
        **kw):
    c = len(data) if caplen is None else caplen
    w = len(data) if wirelen is None else wirelen
    return block(6, struct.pack(e + "IIIII", ifid, ts >> 32, ts & 0xffffffff, c, w) +
                 pad4(data) + opts, e, **kw)


def spb(data, e="<", wirelen=None, **kw):
    w = len(data) if wirelen is None else wirelen
    return block(3, struct.pack(e + "I", w) + pad4(data), e, **kw)


def pb(data, e="<", ifid=0, **kw):
    return block(2, struct.pack(e + "HHIIII", ifid, 0, 0x5f00, 0, len(data), len(data)) +
                 pad4(data), e, **kw)


def ng(frames=FRAMES, e="<", shb_kw=None, idb_kw=None):
    return (shb(e, **(shb_kw or {})) + idb(e, **(idb_kw or {})) +
            b"".join(epb(f, e, ts=0x0005f0000000000 + i) for i, f in enumerate(frames)))


# ------------------------------------------------------------------- cases


def cases():
    """(name, bytes, expect, message piece): expect is 'ok' or 'refuse'."""
    c = []

    def add(name, data, expect, msg=""):
        c.append((name, None if data is None else bytes(data), expect, msg))

    good = pcap()
    # ---- classic pcap: valid variants
    add("pcap_le", good, "ok")
    add("pcap_be", pcap(e=">"), "ok")
    add("pcap_nsec", pcap(magic=0xa1b23c4d), "ok")
    add("pcap_nsec_be", pcap(magic=0xa1b23c4d, e=">"), "ok")
    add("pcap_kuznetzov", pcap_hdr(magic=0xa1b2cd34) + b"".join(
        pcap_rec(f, extra=bytes(8)) for f in FRAMES), "ok")
    for v in ((2, 0), (2, 2), (2, 3), (543, 0)):
        # before 2.3 (and 543.0) captured and original lengths are swapped
        add("pcap_version_%d_%d_swapped_lengths" % v, pcap_hdr(ver=v) + b"".join(
            pcap_rec(f, caplen=len(f) + 10, wirelen=len(f)) for f in FRAMES), "ok")
    add("pcap_version_2_3_unswapped", pcap(ver=(2, 3)), "ok")
    add("pcap_header_only", pcap_hdr(), "ok")
    add("pcap_snaplen_0", pcap(snap=0), "ok")
    add("pcap_snaplen_over_int_max", pcap(snap=0x80000000), "ok")
    add("pcap_fcs_bits_in_linktype", pcap(lt=0x14000001), "ok")
    # ---- wrong magic, byte order, version
    add("pcap_magic_zero", bytes(4) + good[4:], "refuse", "not a pcap or pcapng file")
    add("pcap_magic_navtel", struct.pack("<I", 0xa12b3c4d) + good[4:], "refuse",
        "not a pcap or pcapng file")
    add("pcap_magic_text", b"hello, world\n" * 4, "refuse", "not a pcap or pcapng file")
    for v in ((2, 99), (2, 5), (1, 0), (3, 0), (0, 0), (543, 1)):
        add("pcap_version_%d_%d" % v, pcap(ver=v), "refuse",
            "unsupported pcap version %d.%d" % v)
    add("pcap_version_byte_order_wrong", struct.pack("<I", 0xa1b2c3d4) + struct.pack(
        ">HH", 2, 4) + good[8:], "refuse", "unsupported pcap version")
    add("pcap_linktype_cooked", pcap(lt=113), "refuse", "is not Ethernet")
    add("pcap_linktype_65537", pcap(lt=65537), "refuse", "is not Ethernet")
    # ---- the file header cut at every byte
    add("pcap_empty", b"", "refuse", "empty file")
    add("pcap_directory", None, "refuse", "is a directory")   # written as a directory
    for n in (1, 3):
        add("pcap_cut_magic_%d" % n, good[:n], "refuse", "not a pcap or pcapng file")
    for n in (4, 6, 8, 12, 16, 20, 23):
        add("pcap_cut_file_header_%d" % n, good[:n], "refuse", "truncated pcap file header")
    # ---- a record cut in each field (first and last record)
    r0 = 24
    last = len(good) - (16 + len(FRAMES[-1]))
    for where, base in (("first", r0), ("last", last)):
        for fld, k in (("ts_sec", 2), ("ts_frac", 6), ("caplen", 10), ("wirelen", 14),
                       ("header_end", 16), ("data", 17), ("data_end", 16 + 59)):
            add("pcap_cut_%s_record_%s" % (where, fld), good[:base + k], "ok")
    # ---- lengths over every limit
    for cl in (262145, 0xffffffff, 0xffffffec, 0x80000000):
        add("pcap_caplen_%x" % cl, pcap_hdr() + pcap_rec(FRAMES[0]) +
            pcap_rec(FRAMES[1], caplen=cl) + FRAMES[2] * 10, "refuse",
            "exceeds 262144")
    add("pcap_caplen_over_file_size", pcap_hdr() + pcap_rec(FRAMES[0]) +
        pcap_rec(FRAMES[1], caplen=200000), "ok")    # truncated: 1 packet, then cut
    add("pcap_caplen_over_snaplen", pcap(snap=64), "ok")   # cut to 64, as libpcap does
    add("pcap_record_70000", pcap([frame(0, 70000), frame(1)]), "ok")
    add("pcap_record_262144", pcap([frame(0, 262144)]), "ok")
    add("pcap_zero_length_record", pcap_hdr() + pcap_rec(b"", wirelen=60) +
        pcap_rec(FRAMES[0]), "ok")
    add("pcap_only_zero_length_records", pcap_hdr() + pcap_rec(b"", wirelen=60) * 3, "ok")
    add("pcap_wirelen_below_caplen", pcap_hdr() + pcap_rec(FRAMES[0], wirelen=10), "ok")
    add("pcap_wirelen_max", pcap_hdr() + pcap_rec(FRAMES[0], wirelen=0xffffffff), "ok")

    # ---- pcapng: valid variants
    add("ng_le", ng(), "ok")
    add("ng_be", ng(e=">"), "ok")
    add("ng_version_1_2", ng(shb_kw={"ver": (1, 2)}), "ok")
    add("ng_shb_options", ng(shb_kw={"opts": opt(2, b"x86_64") + opt(0, b"")}), "ok")
    add("ng_header_only", shb() + idb(), "ok")
    add("ng_epb_options", shb() + idb() + epb(FRAMES[0], opts=opt(1, b"a comment") +
                                              opt(2, struct.pack("<I", 1)) + opt(0, b"")),
        "ok")
    add("ng_epb_zero_length", shb() + idb() + epb(b"", wirelen=60) + epb(FRAMES[0]), "ok")
    add("ng_epb_only_zero_length", shb() + idb() + epb(b"", wirelen=60) * 3, "ok")
    add("ng_spb", shb() + idb() + spb(FRAMES[0]) + spb(FRAMES[1]), "ok")
    add("ng_spb_over_snaplen", shb() + idb(snap=64) + spb(FRAMES[1][:64],
                                                          wirelen=len(FRAMES[1])), "ok")
    add("ng_pb_obsolete", shb() + idb() + pb(FRAMES[0]) + pb(FRAMES[1]), "ok")
    add("ng_unknown_blocks", shb() + block(0xB0B, b"abcd") + idb() + block(4, bytes(8)) +
        epb(FRAMES[0]) + block(5, bytes(12)) + block(0x40000BAD, bytes(16)), "ok")
    tsres = [("6", b"\x06"), ("9", b"\x09"), ("19", b"\x13"), ("2_30", b"\x9e"),
             ("2_63", b"\xbf"), ("0", b"\x00")]
    for nm, v in tsres:
        add("ng_tsresol_%s" % nm, ng(idb_kw={"opts": opt(9, v) + opt(0, b"")}), "ok")
    add("ng_tsoffset", ng(idb_kw={"opts": opt(14, struct.pack("<q", -3600))}), "ok")
    add("ng_idb_snaplen_64", shb() + idb(snap=64) + epb(FRAMES[1][:64],
                                                        wirelen=len(FRAMES[1])), "ok")
    ifs = 100
    add("ng_100_interfaces", shb() + idb() * ifs + epb(FRAMES[0], ifid=ifs - 1) +
        epb(FRAMES[1], ifid=70) + epb(FRAMES[2]), "ok")
    add("ng_two_sections_le", ng() + ng(FRAMES[:2]), "ok")
    add("ng_two_sections_be", ng(e=">") + ng(FRAMES[:2], e=">"), "ok")
    add("ng_two_sections_tsresol", ng() + ng(FRAMES[:2], idb_kw={
        "opts": opt(9, b"\x09")}), "ok")
    add("ng_section_without_interfaces_first", shb() + ng(), "ok")
    # ---- wrong magic, byte order, versions of the section header
    g = ng()
    add("ng_bad_byte_order_magic", g[:8] + b"\x01\x02\x03\x04" + g[12:], "refuse",
        "byte-order magic")
    for v in ((1, 1), (2, 0), (0, 0)):
        add("ng_version_%d_%d" % v, ng(shb_kw={"ver": v}), "refuse",
            "unsupported pcapng version %d.%d" % v)
    add("ng_second_section_version_2_0", ng() + ng(shb_kw={"ver": (2, 0)}), "refuse",
        "unsupported pcapng version 2.0")
    # ---- the section header cut, and bad block lengths
    for n in (4, 8, 11, 12, 16, 24, 27):
        add("ng_cut_shb_%d" % n, g[:n], "refuse", "section header block")
    add("ng_shb_length_24", shb(length=24) + idb(), "refuse", "below 28")
    add("ng_shb_length_2mib", shb(length=2 << 20) + idb(), "refuse", "exceeds 1048576")
    add("ng_shb_trailer_mismatch", shb(trailer=32) + idb(), "refuse", "trailing length")
    add("ng_block_length_8", shb() + idb() + block(6, b"", length=8), "refuse", "below 12")
    add("ng_block_length_0", shb() + idb() + block(6, b"", length=0), "refuse", "below 12")
    add("ng_block_length_unaligned", shb() + idb() + epb(FRAMES[0], length=4 * 30 + 2),
        "refuse", "not a multiple of 4")
    add("ng_block_length_16mib", shb() + idb() + block(0xB0B, bytes(16), length=(16 << 20) + 4),
        "refuse", "exceeds 16777216")
    add("ng_block_length_ffffffff", shb() + idb() + block(6, bytes(16), length=0xfffffffc),
        "refuse", "exceeds")
    add("ng_epb_trailer_mismatch", shb() + idb() + epb(FRAMES[0], trailer=0), "refuse",
        "trailing length")
    # ---- truncation after the first interface: counted, not refused
    body = shb() + idb()
    e0 = epb(FRAMES[0])
    for fld, k in (("header", 6), ("length", 8), ("ifid", 12), ("caplen", 26),
                   ("data", 40), ("trailer", len(e0) - 2)):
        add("ng_cut_epb_%s" % fld, body + epb(FRAMES[1]) + e0[:k], "ok")
    add("ng_cut_second_idb", body + epb(FRAMES[1]) + idb()[:10], "ok")
    add("ng_cut_second_shb", body + epb(FRAMES[1]) + shb()[:20], "ok")
    # ---- no interface: libpcap cannot open the file
    add("ng_shb_only", shb(), "refuse", "no interface description block")
    add("ng_shb_and_unknown_block", shb() + block(0xB0B, b"abcd"), "refuse",
        "no interface description block")
    add("ng_cut_first_idb", shb() + idb()[:12], "refuse", "first interface description block")
    add("ng_packet_before_interface", shb() + epb(FRAMES[0]) + idb(), "refuse",
        "interface 0, but section 0 declares 0")
    add("ng_spb_before_interface", shb() + spb(FRAMES[0]) + idb(), "refuse",
        "declares 0")
    # ---- packet blocks: lengths and interfaces
    add("ng_epb_caplen_fffffffec_80_bytes", shb() + idb() + block(6, struct.pack(
        "<IIIII", 0, 0, 0, 0xFFFFFFEC, 0xFFFFFFEC)), "refuse", "runs past the block")
    add("ng_epb_caplen_past_block", shb() + idb() + epb(FRAMES[0], caplen=len(FRAMES[0]) + 8),
        "refuse", "runs past the block")
    add("ng_epb_short", shb() + idb() + block(6, bytes(16)), "refuse", "below 20")
    add("ng_spb_short", shb() + idb() + block(3, b""), "refuse", "below 4")
    add("ng_spb_past_block", shb() + idb() + spb(FRAMES[0][:20], wirelen=200), "refuse",
        "runs past the block")
    add("ng_epb_undeclared_interface", shb() + idb() + epb(FRAMES[0], ifid=1), "refuse",
        "interface 1, but section 0 declares 1")
    add("ng_pb_undeclared_interface", shb() + idb() + pb(FRAMES[0], ifid=3), "refuse",
        "interface 3")
    add("ng_epb_over_interface_snaplen", shb() + idb(snap=64) + epb(FRAMES[1]), "refuse",
        "exceeds the snap length 64")
    add("ng_epb_262145", shb() + idb(snap=300000) + epb(bytes(262145)), "refuse",
        "exceeds 262144")
    add("ng_epb_266000", shb() + idb(snap=300000) + epb(bytes(266000)), "refuse",
        "exceeds 262144")
    add("ng_section_2_undeclared_interface", ng() + shb() + epb(FRAMES[0]), "refuse",
        "section 1 declares 0")
    # ---- interface blocks and their options
    add("ng_idb_short", shb() + block(1, struct.pack("<HH", 1, 0)) + epb(FRAMES[0]), "refuse",
        "below 8")
    for nm, v, msg in (("20", b"\x14", "10^-20"), ("2_64", b"\xc0", "2^-64"),
                       ("2_127", b"\xff", "2^-127")):
        add("ng_tsresol_%s" % nm, ng(idb_kw={"opts": opt(9, v)}), "refuse", msg)
    add("ng_tsresol_length_0", ng(idb_kw={"opts": opt(9, b"")}), "refuse",
        "if_tsresol of length")
    add("ng_tsresol_length_2", ng(idb_kw={"opts": opt(9, b"\x06\x00")}), "refuse",
        "if_tsresol of length")
    add("ng_tsresol_twice", ng(idb_kw={"opts": opt(9, b"\x06") + opt(9, b"\x09")}), "refuse",
        "two if_tsresol")
    add("ng_tsoffset_length_4", ng(idb_kw={"opts": opt(14, bytes(4))}), "refuse",
        "if_tsoffset of length")
    add("ng_idb_option_past_block", ng(idb_kw={"opts": opt(2, b"eth0", length=40)}), "refuse",
        "runs past the block")
    add("ng_idb_tsresol_past_block_in_second_section", ng() + ng(idb_kw={
        "opts": opt(9, b"\x06", length=200)}), "refuse", "runs past the block")
    add("ng_idb_endofopt_length_4", ng(idb_kw={"opts": opt(0, bytes(4))}), "refuse",
        "opt_endofopt of length 4")
    # ---- what libpcap 1.10 reads differently
    add("ng_sections_le_then_be", ng() + ng(FRAMES[:2], e=">"), "refuse",
        "stops at a change of byte order")
    add("ng_sections_be_then_le", ng(e=">") + ng(FRAMES[:2]), "refuse", "stops at a change of byte order")
    add("ng_mixed_linktypes", shb() + idb() + idb(lt=113) + epb(FRAMES[0]) +
        epb(FRAMES[1], ifid=1), "refuse", "interfaces of different link types")
    add("ng_sections_cooked_then_ethernet", shb() + idb(lt=113) + epb(FRAMES[0]) + ng(),
        "refuse", "interfaces of different link types")
    add("ng_sections_ethernet_then_cooked", ng() + shb() + idb(lt=113) + epb(FRAMES[0]),
        "refuse", "interfaces of different link types")
    add("ng_linktype_cooked", ng(idb_kw={"lt": 113}), "refuse", "is not Ethernet")
    add("ng_interfaces_of_different_snaplen", shb() + idb(snap=65535) + idb(snap=262144) +
        epb(FRAMES[0]) + epb(FRAMES[1], ifid=1), "refuse", "snap length 262144")
    add("ng_snaplen_0_and_262144_agree", shb() + idb(snap=0) + idb(snap=262144) +
        epb(FRAMES[0]) + epb(FRAMES[1], ifid=1), "ok")
    return c


# ----------------------------------------------------------------- libpcap


class PktHdr(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long),
                ("caplen", ctypes.c_uint32), ("len", ctypes.c_uint32)]


def libpcap():
    for name in ("libpcap.so.0.8", "libpcap.so.1", "libpcap.so"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.pcap_open_offline.restype = ctypes.c_void_p
        lib.pcap_open_offline.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.pcap_next_ex.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(PktHdr)),
                                     ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte))]
        lib.pcap_close.argtypes = [ctypes.c_void_p]
        lib.pcap_lib_version.restype = ctypes.c_char_p
        lib.pcap_geterr.restype = ctypes.c_char_p
        lib.pcap_geterr.argtypes = [ctypes.c_void_p]
        return lib
    return None


def libpcap_read(lib, path):
    """libpcap's reading: (opened, packets before the first error, first error,
    packets in all as net_pcap reads on after errors, errors)."""
    err = ctypes.create_string_buffer(512)
    p = lib.pcap_open_offline(path.encode(), err)
    if not p:
        return False, 0, err.value.decode(errors="replace"), 0, 0
    hdr = ctypes.POINTER(PktHdr)()
    data = ctypes.POINTER(ctypes.c_ubyte)()
    first, first_err, total, errors = None, "", 0, 0
    for _ in range(1000000):
        r = lib.pcap_next_ex(p, ctypes.byref(hdr), ctypes.byref(data))
        if r == 1:
            total += 1
        elif r == -2:
            break
        else:
            if first is None:
                first = total
                first_err = (lib.pcap_geterr(p) or b"").decode(errors="replace")
            errors += 1
    lib.pcap_close(p)
    return True, total if first is None else first, first_err, total, errors


# --------------------------------------------------------------------- run

SANITIZER = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
             "SUMMARY: UndefinedBehaviorSanitizer")


def run_capture(app, path, tmp, reader):
    j = os.path.join(tmp, "report.json")
    # net_pcap (libpcap) is what these files are checked against; the direct
    # reader must give the same
    opts = ["--idle-ms", "300"] if reader == "pmd" else []
    r = subprocess.run([app] + EAL + ["--", "--cpu", "--quiet", "--progress", "0",
                                      "--reader", reader, "--pcap", path, "--json", j] + opts,
                       capture_output=True, text=True, timeout=120)
    rep = json.load(open(j)) if r.returncode == 0 and os.path.exists(j) else None
    if os.path.exists(j):
        os.unlink(j)
    return r, rep


def check_capture(capture, reader, case, path, tmp, lp):
    """gpudp-capture with @p reader on the file: its (why it failed, detail)."""
    _, _, expect, msg = case
    opened, n_first, first_err, n_all, errors = lp
    r, rep = run_capture(capture, path, tmp, reader)
    why, line = [], []
    if any(s in r.stderr for s in SANITIZER):
        why.append("sanitizer report")
    if r.returncode == 0:
        if rep is None:
            why.append("exit 0 without a report")
        else:
            trunc = rep["input_file"]["truncated"]
            if rep["packets"] != n_first or not opened:
                why.append("%d packets, libpcap reads %s" % (
                    rep["packets"], n_first if opened else "nothing: " + first_err))
            if n_all != n_first:
                why.append("libpcap reads %d more packets after its error %r" % (
                    n_all - n_first, first_err))
            if trunc != (errors > 0):
                why.append("truncated %s, libpcap errors %d" % (trunc, errors))
            if rep["drops"]["rx_errors"] != errors or rep["rx"]["errors"] != errors:
                why.append("rx_errors %d, libpcap errors %d" % (rep["drops"]["rx_errors"],
                                                                errors))
        if expect != "ok":
            why.append("expected a refusal (%s)" % msg)
    elif r.returncode == 1:
        line = [ln for ln in r.stderr.splitlines() if "input error:" in ln]
        if not line or path not in line[0] or msg not in line[0]:
            why.append("exit 1 without 'input error: %s: ...%s...'" % (path, msg))
        if expect != "refuse":
            why.append("expected exit 0 (libpcap reads %d)" % n_first)
    else:
        why.append("exit %d" % r.returncode)
    detail = (line[0] if r.returncode == 1 and line else
              "%d packets, rx_errors %d" % (rep["packets"], rep["drops"]["rx_errors"])
              if rep else r.stderr.strip()[-300:])
    return why, detail


def run_fwd(app, path, tmp, count):
    out = os.path.join(tmp, "out.pcap")
    cmd = [app, "--no-huge", "-m", "256", "--no-pci", "--no-telemetry", "--no-shconf",
           "--log-level=lib.*:error", "--lcores", "(0-2)@0",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (path, out), "--",
           "--pairing", "same", "--mode", "none", "--stats", "0", "--duration", "2",
           "--ring", "8", "--flush-us", "100", "--mbufs", "4096"]
    if count:
        cmd += ["--count", str(count)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    n, cut = None, 0
    for w in " ".join(ln for ln in r.stdout.splitlines() if ln.startswith("final:")).split():
        if w.startswith("pmd_cut="):
            cut = int(w[8:])
    if r.returncode == 0 and os.path.exists(out):
        data = open(out, "rb").read()
        e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
        off, n = 24, 0
        while off + 16 <= len(data):
            off += 16 + struct.unpack_from(e + "I", data, off + 8)[0]
            n += 1
    return r, n, cut


def check_case(case, d, capture, fwd, lib):
    name = case[0]
    path = os.path.join(d, name + (".pcapng" if name.startswith("ng_") else ".pcap"))
    lp = libpcap_read(lib, path)
    opened, n_all = lp[0], lp[3]
    res = []
    tmp = tempfile.mkdtemp(prefix="gpudp-damaged-")
    try:
        for app, reader in (("capture", "pmd"), ("direct", "direct")):
            t0 = time.time()
            why, detail = check_capture(capture, reader, case, path, tmp, lp)
            res.append((app, name, why, detail, time.time() - t0))
        if fwd:
            t0 = time.time()
            known = KNOWN.get(name)
            rf, n, cut = run_fwd(fwd, path, tmp, n_all if opened else 0)
            why = []
            if any(s in rf.stderr for s in SANITIZER):
                why.append("sanitizer report")
            if rf.returncode == 0:
                # records net_pcap delivers cut (over 65535 bytes) are dropped, counted
                if n is None or n + cut != n_all:
                    why.append("%s packets forwarded and %d dropped as pmd_cut, net_pcap "
                               "reads %d" % (n, cut, n_all))
            elif rf.returncode in (1, 2):
                if opened:
                    why.append("exit %d on a file libpcap opens" % rf.returncode)
                elif path not in rf.stderr:
                    why.append("exit %d without naming the file" % rf.returncode)
            else:
                why.append("exit %d" % rf.returncode)
            if known and known[0] == "fwd" and why:
                res.append(("fwd", name, [], "KNOWN (%s): %s" % (known[1], "; ".join(why)),
                            time.time() - t0))
            else:
                res.append(("fwd", name, why, "%s forwarded, %d pmd_cut" % (n, cut)
                            if rf.returncode == 0 else "exit %d" % rf.returncode,
                            time.time() - t0))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return res


def gen(d):
    os.makedirs(d, exist_ok=True)
    cs = cases()
    for name, data, _, _ in cs:
        path = os.path.join(d, name + (".pcapng" if name.startswith("ng_") else ".pcap"))
        if data is None:
            os.makedirs(path, exist_ok=True)
            continue
        with open(path, "wb") as f:
            f.write(data)
    return cs


def main():
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == "gen":
        print("%d files in %s" % (len(gen(a[1])), a[1]))
        return 0
    if len(a) < 3 or a[0] != "run":
        sys.exit(__doc__)
    only = None
    if "--only" in a:
        i = a.index("--only")
        only = a[i + 1]
        a = a[:i] + a[i + 2:]
    d, capture = a[1], a[2]
    fwd = a[3] if len(a) > 3 else None
    lib = libpcap()
    if lib is None:
        print("skip: libpcap not found")
        print("0 passed, 0 failed, 1 skipped")
        return 77
    shutil.rmtree(d, ignore_errors=True)
    cs = [c for c in gen(d) if only is None or only in c[0]]
    print("%d files, %s" % (len(cs), lib.pcap_lib_version().decode()))
    t0 = time.time()
    passed = failed = 0
    jobs = int(os.environ.get("GPUDP_TEST_JOBS", "2"))
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for res in ex.map(lambda c: check_case(c, d, capture, fwd, lib), cs):
            for app, name, why, detail, secs in res:
                if why:
                    failed += 1
                    print("FAIL %-7s %s: %s [%s]" % (app, name, "; ".join(why), detail[:300]))
                else:
                    passed += 1
                    print("ok   %-7s %s (%.1f s): %s" % (app, name, secs, detail[:160]))
    print("%.0f s for %d files" % (time.time() - t0, len(cs)))
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
