/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The descriptor of one packet of a batch whose packets lie in one data
 * area: where its bytes are, its lengths, its time. One type from the
 * capture file to the GPU: the capture file reader writes it
 * (gpudp_capfile_parse_descs(), gpudp_capfile.h), the analysis reads it
 * (gpudp_analysis_batch(), gpudp_analysis.h), lib/capture's batches hold
 * it (gpudp_cap_batch.h), and the handoff's GPU gathers the packets it
 * describes (gpudp_handoff_submit_desc(), gpudp_handoff.h). 24 bytes, no
 * padding: an array of them is copied and read as it is, by the CPU and
 * by the GPU. Included by C11 code and by nvcc.
 *
 * struct gpudp_ho_desc (gpudp_handoff.h) and struct gpudp_an_pkt_desc
 * (gpudp_analysis_types.h), the names this type had in those libraries,
 * are deprecated names of it, as are the field names len, wire_len and
 * pad (of caplen, wirelen and mark).
 */
#ifndef GPUDP_PKT_DESC_H
#define GPUDP_PKT_DESC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One packet of a batch: its bytes at data + off in the batch's data area. */
struct gpudp_pkt_desc {
	uint32_t off;          /**< its first byte: data + off */
	union {
		uint32_t caplen;   /**< bytes there (the frame's captured length) */
		uint32_t len;      /**< deprecated name of caplen */
	};
	union {
		uint32_t wirelen;  /**< original length on the wire, as the capture gives
				    *   it (below caplen in a bogus record, counted as
				    *   is); gpudp_work_meta.wire_len for a work */
		uint32_t wire_len; /**< deprecated name of wirelen */
	};
	union {
		uint32_t mark;     /**< gpudp_work_meta.mark for a work; 0 where nothing
				    *   reads it (the capture file reader, the analysis) */
		uint32_t pad;      /**< deprecated name of mark */
	};
	uint64_t ts_ns;        /**< capture time, ns since the epoch (0 if unknown) */
};

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_PKT_DESC_H */
