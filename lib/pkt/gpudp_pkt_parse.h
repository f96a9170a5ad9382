/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The packet parser, shared verbatim by C11 code and by nvcc (CUDA C++):
 * Ethernet, VLAN tags, LLC/SNAP and PPPoE sessions, IPv4 with its options,
 * IPv6 with its extension headers, fragments, TCP, UDP, ICMP and ICMPv6.
 * The capture analysis (gpudp_analysis_pkt.h) and the built-in works
 * (gpudp_fwd_pkt.h) parse with it, on the CPU and on the GPU alike; doc/capture.md,
 * "How the parser compares with tshark", says what it reads and how.
 *
 * Every function is GPUDP_PKT_HD: static inline in C, __host__ __device__
 * under nvcc. Packet bytes are read one byte at a time (packets sit at any
 * alignment). It uses nothing beyond <stdint.h>: no DPDK, no CUDA runtime.
 */
#ifndef GPUDP_PKT_PARSE_H
#define GPUDP_PKT_PARSE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Function qualifier of code that runs on the CPU and the GPU: static
 * inline in C, __host__ __device__ __forceinline__ under nvcc.
 */
#ifdef __CUDACC__
#define GPUDP_PKT_HD static __host__ __device__ __forceinline__
#else
#define GPUDP_PKT_HD static inline
#endif

/** Parse status of one packet. */
enum gpudp_pkt_status {
	GPUDP_PKT_OK = 0,
	GPUDP_PKT_TRUNCATED,
	GPUDP_PKT_MALFORMED,
};

/** Maximum VLAN tags recorded (more are skipped and counted as QinQ). */
#define GPUDP_PKT_MAX_VLAN 2
/** Maximum tags or IPv6 extension headers walked before giving up (malformed). */
#define GPUDP_PKT_MAX_CHAIN 8

/** What the parser found in one packet. */
struct gpudp_pkt_info {
	uint8_t status;      /**< enum gpudp_pkt_status */
	uint8_t n_vlan;      /**< tags seen (may exceed GPUDP_PKT_MAX_VLAN) */
	uint8_t af;          /**< 4, 6, or 0 when no complete IP header */
	uint8_t l4proto;     /**< IP protocol after extension headers */
	uint8_t has_ports;   /**< TCP or UDP header complete: sport/dport valid */
	uint8_t has_l4;      /**< the L4 header was complete (TCP/UDP/ICMP/ICMPv6) */
	uint8_t is_frag;     /**< IPv4 fragment, or IPv6 with a fragment header (atomic too) */
	uint8_t frag_first;  /**< is_frag and fragment offset 0 */
	uint8_t frag_last;   /**< is_frag and no more-fragments flag (both: IPv6 atomic fragment) */
	uint8_t frag_proto;  /**< is_frag: IPv4 protocol, or the fragment header's next header */
	uint8_t has_ext;     /**< IPv6 extension headers present */
	uint8_t tos;         /**< IPv4 ToS or IPv6 traffic class (af 4 or 6) */
	uint8_t tcp_flags;   /**< has_l4 and TCP: the header's flags (CWR..FIN, low 8 bits) */
	uint8_t icmp_type;   /**< has_l4 and ICMP (IPv4) or ICMPv6: the message's type */
	uint8_t icmp_code;   /**< and its code */
	uint16_t vlan_id[GPUDP_PKT_MAX_VLAN];
	uint16_t ethertype;  /**< of the layer 3 header: after the tags, and after an
	                          LLC/SNAP header or a PPPoE session header (PPP's
	                          IPv4 and IPv6 given as 0x0800 and 0x86dd) */
	uint16_t sport, dport;
	uint32_t ip_len;     /**< IP datagram length from the header (0 if none) */
	uint32_t l3_off;     /**< offset of the layer 3 (IP) header */
	uint32_t l4_off;     /**< offset of what follows the IP header and its extension
	                          headers (the L4 header, or a non-first fragment's
	                          payload); 0 when no IP header was complete */
	uint32_t frag_id;    /**< is_frag: IP identification (IPv4: 16 bits, IPv6: 32) */
	uint32_t frag_off;   /**< is_frag: fragment offset in bytes */
	uint32_t frag_len;   /**< is_frag: payload bytes of the fragment, from the IP lengths
	                          (after the IPv4 header, or after the IPv6 fragment header) */
	uint8_t src[16];
	uint8_t dst[16];     /**< the final destination: the header's, or, when the packet
	                          is source-routed (an IPv4 loose or strict source route
	                          option, an IPv6 routing header of type 0, 2 or 4) and
	                          has hops left, the last address of its route */
};

/** Read a big-endian 16-bit field at any alignment. */
GPUDP_PKT_HD uint32_t
gpudp_rd16(const uint8_t *p)
{
	return ((uint32_t)p[0] << 8) | p[1];
}

/**
 * The final destination of an IPv4 packet whose @p ihl bytes of header are
 * at @p h: when a loose (131) or strict (137) source route option (RFC 791,
 * section 3.1) has addresses left (its pointer on a whole address), the
 * header's destination is only the next hop and the last address of the
 * route is the final one, which @p dst is set to. tshark does the same
 * (ip.dst, its conversations and endpoints). Otherwise @p dst is left alone.
 */
GPUDP_PKT_HD void
gpudp_pkt_ipv4_route_dst(const uint8_t *h, uint32_t ihl, uint8_t *dst)
{
	uint32_t o = 20, t, ol, ptr, i;

	while (o < ihl) {
		t = h[o];
		if (t == 0)
			return;        /* end of the option list */
		if (t == 1) {
			o++;           /* no operation */
			continue;
		}
		if (o + 1 >= ihl)
			return;
		ol = h[o + 1];
		if (ol < 2 || o + ol > ihl)
			return;        /* a bad option length: nothing after it is read */
		if (t == 131 || t == 137) {
			/* at least one address, whole ones; the pointer (from the
			 * option's first byte, the first address at 4) on one */
			if (ol < 7 || (ol - 3) % 4 != 0)
				return;
			ptr = h[o + 2];
			if (ptr >= 4 && ptr % 4 == 0 && ptr <= ol - 3)
				for (i = 0; i < 4; i++)
					dst[i] = h[o + ol - 4 + i];
			return;        /* one source route at most (RFC 791) */
		}
		o += ol;
	}
}

/**
 * Parse Ethernet, up to GPUDP_PKT_MAX_CHAIN VLAN tags (0x8100, 0x88a8,
 * 0x9100), an IEEE 802.3 LLC/SNAP header with an EtherType (OUI 00-00-00,
 * RFC 1042, or 00-00-F8) or a PPPoE session header (RFC 2516) with PPP's
 * IPv4 or IPv6, IPv4 (with its options: a source route's final
 * destination; AH headers), or IPv6 (hop-by-hop, routing, fragment,
 * destination options, AH, mobility, HIP, shim6 extension headers; a
 * routing header's final destination), and TCP (the header with its
 * options, as its data offset says), UDP, ICMP, ICMPv6 headers.
 *
 * @param p       first byte of the Ethernet header
 * @param caplen  bytes available at p
 * @param pi      filled; fields of layers not reached are zero
 */
GPUDP_PKT_HD void
gpudp_pkt_parse(const uint8_t *p, uint32_t caplen, struct gpudp_pkt_info *pi)
{
	uint32_t off, i, et, hl, nh;

	{
		uint8_t *z = (uint8_t *)pi;
		for (i = 0; i < sizeof(*pi); i++)
			z[i] = 0;
	}
	if (caplen < 14) {
		pi->status = GPUDP_PKT_TRUNCATED;
		return;
	}
	et = gpudp_rd16(p + 12);
	off = 14;
	for (i = 0; et == 0x8100 || et == 0x88a8 || et == 0x9100; i++) {
		if (i == GPUDP_PKT_MAX_CHAIN) {
			pi->status = GPUDP_PKT_MALFORMED;
			return;
		}
		if (caplen < off + 4) {
			pi->status = GPUDP_PKT_TRUNCATED;
			return;
		}
		if (pi->n_vlan < GPUDP_PKT_MAX_VLAN)
			pi->vlan_id[pi->n_vlan] = (uint16_t)(gpudp_rd16(p + off) & 0xfff);
		pi->n_vlan++;
		et = gpudp_rd16(p + off + 2);
		off += 4;
	}
	if (et <= 1500) {
		/* IEEE 802.3: a length, then LLC. SNAP (AA-AA-03) with OUI
		 * 00-00-00 (RFC 1042) or 00-00-F8 (802.1H) carries an EtherType. */
		if (caplen >= off + 8 && p[off] == 0xaa && p[off + 1] == 0xaa && p[off + 2] == 3 &&
		    p[off + 3] == 0 && p[off + 4] == 0 && (p[off + 5] == 0 || p[off + 5] == 0xf8)) {
			et = gpudp_rd16(p + off + 6);
			off += 8;
		}
	} else if (et == 0x8864) {
		/* PPPoE session stage: version 1, type 1, code 0, session ID,
		 * length, then PPP's protocol field (uncompressed, RFC 2516) */
		if (caplen < off + 8) {
			pi->status = GPUDP_PKT_TRUNCATED;
			return;
		}
		nh = gpudp_rd16(p + off + 6);
		if (p[off] == 0x11 && p[off + 1] == 0 && (nh == 0x0021 || nh == 0x0057)) {
			et = nh == 0x0021 ? 0x0800 : 0x86dd;
			off += 8;
		}
	}
	pi->ethertype = (uint16_t)et;
	pi->l3_off = off;

	if (et == 0x0800) {
		uint32_t ihl, frag;

		if (caplen < off + 20) {
			pi->status = GPUDP_PKT_TRUNCATED;
			return;
		}
		if ((p[off] >> 4) != 4) {
			pi->status = GPUDP_PKT_MALFORMED;
			return;
		}
		ihl = (uint32_t)(p[off] & 0xf) * 4;
		if (ihl < 20) {
			pi->status = GPUDP_PKT_MALFORMED;
			return;
		}
		if (caplen < off + ihl) {
			pi->status = GPUDP_PKT_TRUNCATED;
			return;
		}
		pi->ip_len = gpudp_rd16(p + off + 2);
		if (pi->ip_len < ihl) {
			pi->status = GPUDP_PKT_MALFORMED;
			return;
		}
		pi->af = 4;
		pi->tos = p[off + 1];
		pi->l4proto = p[off + 9];
		for (i = 0; i < 4; i++) {
			pi->src[i] = p[off + 12 + i];
			pi->dst[i] = p[off + 16 + i];
		}
		if (ihl > 20)
			gpudp_pkt_ipv4_route_dst(p + off, ihl, pi->dst);
		frag = gpudp_rd16(p + off + 6);
		if (frag & 0x3fff) {
			pi->is_frag = 1;
			pi->frag_first = !(frag & 0x1fff);
			pi->frag_last = !(frag & 0x2000);
			pi->frag_proto = pi->l4proto;
			pi->frag_id = gpudp_rd16(p + off + 4);
			pi->frag_off = (frag & 0x1fff) * 8;
			pi->frag_len = pi->ip_len - ihl;
			if (!pi->frag_first) {
				pi->l4_off = off + ihl;
				return; /* non-first fragment: no L4 header */
			}
		}
		off += ihl;
		/* AH (RFC 4302) between the header and the transport, as in IPv6;
		 * a fragmented datagram stays keyed by the IP header's protocol */
		for (i = 0; pi->l4proto == 51; i++) {
			if (i == GPUDP_PKT_MAX_CHAIN) {
				pi->status = GPUDP_PKT_MALFORMED;
				return;
			}
			if (caplen < off + 8) {
				pi->status = GPUDP_PKT_TRUNCATED;
				return;
			}
			pi->l4proto = p[off];
			off += ((uint32_t)p[off + 1] + 2) * 4;
		}
	} else if (et == 0x86dd) {
		uint32_t routed = 0, k;

		if (caplen < off + 40) {
			pi->status = GPUDP_PKT_TRUNCATED;
			return;
		}
		if ((p[off] >> 4) != 6) {
			pi->status = GPUDP_PKT_MALFORMED;
			return;
		}
		pi->ip_len = 40 + gpudp_rd16(p + off + 4);
		pi->af = 6;
		pi->tos = (uint8_t)((p[off] & 0xf) << 4 | p[off + 1] >> 4);
		for (i = 0; i < 16; i++) {
			pi->src[i] = p[off + 8 + i];
			pi->dst[i] = p[off + 24 + i];
		}
		nh = p[off + 6];
		off += 40;
		for (i = 0; ; i++) {
			if (nh != 0 && nh != 43 && nh != 44 && nh != 51 &&
			    nh != 60 && nh != 135 && nh != 139 && nh != 140)
				break;
			if (i == GPUDP_PKT_MAX_CHAIN) {
				pi->l4proto = (uint8_t)nh;
				pi->status = GPUDP_PKT_MALFORMED;
				return;
			}
			pi->has_ext = 1;
			if (caplen < off + 8) {
				pi->l4proto = (uint8_t)nh;
				pi->status = GPUDP_PKT_TRUNCATED;
				return;
			}
			if (nh == 44) {
				/* a second fragment header: the first one wins */
				if (!pi->is_frag) {
					if (pi->ip_len < off + 8 - pi->l3_off) {
						pi->l4proto = (uint8_t)nh;
						pi->status = GPUDP_PKT_MALFORMED;
						return; /* payload length short of this header */
					}
					pi->is_frag = 1;
					pi->frag_off = gpudp_rd16(p + off + 2) & 0xfff8;
					pi->frag_first = pi->frag_off == 0;
					pi->frag_last = !(p[off + 3] & 1);
					pi->frag_proto = p[off];
					pi->frag_id = (gpudp_rd16(p + off + 4) << 16) |
						      gpudp_rd16(p + off + 6);
					pi->frag_len = pi->ip_len - (off + 8 - pi->l3_off);
				}
				if (!pi->frag_first) {
					pi->l4proto = p[off];
					pi->l4_off = off + 8;
					return; /* non-first fragment */
				}
				hl = 8;
			} else if (nh == 51) {
				hl = ((uint32_t)p[off + 1] + 2) * 4;
			} else {
				hl = ((uint32_t)p[off + 1] + 1) * 8;
			}
			if (nh == 43 && p[off + 3] != 0 && !routed && !pi->is_frag) {
				/* a routing header with segments left: the final
				 * destination is its last address (type 0), the home
				 * address (type 2) or segment 0 (type 4, SRH). Only
				 * before a fragment header, where every fragment has
				 * it (RFC 8200, 4.5): they all share one key. */
				uint32_t t = p[off + 2], n = p[off + 1] / 2, a = 0;

				if (t == 0 && n > 0)
					a = off + 8 + 16 * (n - 1);
				else if ((t == 2 && n == 1) || (t == 4 && n > 0))
					a = off + 8;
				if (a != 0) {
					if (caplen < a + 16) {
						pi->l4proto = (uint8_t)nh;
						pi->status = GPUDP_PKT_TRUNCATED;
						return;
					}
					for (k = 0; k < 16; k++)
						pi->dst[k] = p[a + k];
					routed = 1;
				}
			}
			nh = p[off];
			off += hl;
		}
		pi->l4proto = (uint8_t)nh;
	} else {
		return; /* ARP or other L3: done */
	}

	pi->l4_off = off;
	hl = 0;
	switch (pi->l4proto) {
	case 6:
		hl = 20;
		break;
	case 17:
		hl = 8;
		break;
	case 1:
		hl = pi->af == 4 ? 4 : 0;
		break;
	case 58:
		hl = pi->af == 6 ? 4 : 0;
		break;
	default:
		break;
	}
	if (hl == 0)
		return;
	if (caplen < off + hl) {
		pi->status = GPUDP_PKT_TRUNCATED;
		return;
	}
	if (pi->l4proto == 6) {
		/* the data offset: below 5 words, or past the end of the datagram,
		 * it is no TCP header (a first fragment's header may go on in the
		 * next fragment); cut by the capture, it is incomplete */
		hl = (uint32_t)(p[off + 12] >> 4) * 4;
		if (hl < 20 || ((!pi->is_frag || pi->frag_last) &&
				off + hl > pi->l3_off + pi->ip_len)) {
			pi->status = GPUDP_PKT_MALFORMED;
			return;
		}
		if (caplen < off + hl) {
			pi->status = GPUDP_PKT_TRUNCATED;
			return;
		}
	}
	pi->has_l4 = 1;
	if (pi->l4proto == 6 || pi->l4proto == 17) {
		pi->has_ports = 1;
		pi->sport = (uint16_t)gpudp_rd16(p + off);
		pi->dport = (uint16_t)gpudp_rd16(p + off + 2);
		if (pi->l4proto == 6)
			pi->tcp_flags = p[off + 13];
	} else {
		pi->icmp_type = p[off];
		pi->icmp_code = p[off + 1];
	}
}

/**
 * The L4 payload of a packet gpudp_pkt_parse() described in @p pi: after
 * the TCP header (its data offset), the UDP header, the 8 bytes of an ICMP
 * or ICMPv6 header; for another IP protocol, and for a non-first fragment,
 * everything after the IP header and its extension headers. It ends at the
 * end of the IP datagram (Ethernet padding is not payload) or of the
 * captured bytes. A packet without a complete IP header, or whose L4
 * header is cut, has none.
 * @param len  set to the payload's length (0: none)
 * @return the payload's offset from @p p
 */
GPUDP_PKT_HD uint32_t
gpudp_pkt_payload(const uint8_t *p, uint32_t caplen, const struct gpudp_pkt_info *pi,
		  uint32_t *len)
{
	uint32_t off = pi->l4_off, end, hl = 0;

	*len = 0;
	if (pi->af == 0 || off == 0 || off > caplen)
		return 0;
	end = pi->l3_off + pi->ip_len;
	if (end > caplen || end < off)
		end = caplen;
	if (!pi->is_frag || pi->frag_first) {
		if (pi->l4proto == 6 || pi->l4proto == 17 ||
		    (pi->l4proto == 1 && pi->af == 4) || (pi->l4proto == 58 && pi->af == 6)) {
			if (!pi->has_l4)
				return 0;
			hl = pi->l4proto == 6 ? (uint32_t)(p[off + 12] >> 4) * 4 : 8;
			if (pi->l4proto == 6 && hl < 20)
				hl = 20;   /* a TCP data offset below 5: the fixed header */
		}
	}
	if (off + hl >= end)
		return 0;
	*len = end - off - hl;
	return off + hl;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_PKT_PARSE_H */
