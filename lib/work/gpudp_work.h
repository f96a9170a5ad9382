/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp works: the user's per-packet code, run by a handoff
 * (gpudp_handoff.h) in every mode, on the CPU and on the GPU, from one C
 * source. Guide: doc/work.md.
 *
 * A work is
 * - a per-packet function written once with GPUDP_WORK_FN (static inline
 *   in C, __host__ __device__ under nvcc):
 *
 *       GPUDP_WORK_FN uint32_t my_pkt(struct gpudp_work_pkt *p);
 *
 *   It reads and may write the packet's bytes (p->seg[], up to the span it
 *   declares), may write its result (p->result, result_size bytes) and add
 *   to its counters (gpudp_work_count()), and returns a verdict:
 *   GPUDP_WORK_PASS, or a drop reason 1..n_reasons that it names;
 * - its CPU form, GPUDP_WORK_CPU(my_cpu, my_pkt), a burst loop around the
 *   function (C);
 * - its GPU form, GPUDP_WORK_GPU(my_pkt) in a .cu file that includes
 *   gpudp_work_dev.h: gpudp's kernel shapes for every GPU mode (one kernel
 *   per burst, CUDA graphs, the resident persistent kernel, staged)
 *   instantiated around the function, compiled by nvcc into a GPU image
 *   (a fatbin) that the C side embeds (GPUDP_WORK_IMAGE());
 * - a descriptor, struct gpudp_work, that names all of this.
 *
 * The built-in works (macswap, ipv4, load, match; lib/work) are registered
 * through the same API. A work built outside the tree is a shared object that exports
 * GPUDP_WORK_EXPORT(descriptor); gpudp_work_load() opens it.
 *
 * This header is C11 and nvcc; its inline parts depend on neither DPDK nor
 * CUDA.
 */
#ifndef GPUDP_WORK_H
#define GPUDP_WORK_H

#include <stddef.h>
#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <string.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Version of the work ABI: the layout of struct gpudp_work, struct
 * gpudp_work_pkt, struct gpudp_work_burst, struct gpudp_work_meta and the
 * kernel arguments of gpudp_work_dev.h (2: packet metadata, 64 counters
 * summed in shared memory; 3: tables, fini). A work records the version it
 * was built with (in its descriptor and in its GPU image); gpudp refuses
 * any other.
 */
#define GPUDP_WORK_ABI 4

/** Most segments a packet may have (header/data split delivers 2). */
#define GPUDP_WORK_SEGS_MAX 4
/** Most drop reasons a work may name (verdicts 1..14). */
#define GPUDP_WORK_REASONS_MAX 14
/** Verdict: transmit the packet. */
#define GPUDP_WORK_PASS 0u
/** Verdict reserved to gpudp: the burst's submission failed or the GPU
 *  faulted ("error" in counters). A work's out-of-range verdict counts
 *  here too. */
#define GPUDP_WORK_DROP_ERROR 15u
/** Size of a verdict-indexed counter array. */
#define GPUDP_WORK_VERDICT_MAX 16
/** Most per-burst counters a work may have. */
#define GPUDP_WORK_COUNTERS_MAX 64
/** Largest per-packet result, bytes. */
#define GPUDP_WORK_RESULT_MAX 64
/** Largest parameter block, bytes (copied to GPU memory once). */
#define GPUDP_WORK_PARAMS_MAX 65536
/** Longest work name, bytes with the NUL. */
#define GPUDP_WORK_NAME_MAX 32
/** Most tables a work may have (struct gpudp_work_table). */
#define GPUDP_WORK_TABLES_MAX 8
/** Largest table, bytes. */
#define GPUDP_WORK_TABLE_MAX (4ull << 30)

#if defined(__CUDACC__)
/** A work's per-packet code: one source for the CPU and the GPU. */
#define GPUDP_WORK_FN static __host__ __device__ __forceinline__
#else
#define GPUDP_WORK_FN static inline
#endif

/**
 * Per-packet metadata the caller of a handoff attaches to each packet
 * (gpudp_handoff_conf.meta, gpudp_ho_burst.meta): what the packet's bytes
 * do not say. gpudp-capture gives each packet's capture timestamp and
 * original length this way.
 */
struct gpudp_work_meta {
	uint64_t ts_ns;     /**< timestamp, ns (the caller's clock) */
	uint32_t wire_len;  /**< the frame's length on the wire (>= the bytes present
			     *   when the capture cut it short) */
	uint32_t mark;      /**< the caller's (e.g. a flow mark or a queue) */
};

/**
 * One packet, as the work's function sees it. Built by gpudp for each
 * call; seg[0] is the frame's first byte. The work reads and writes packet
 * bytes only through seg[] (or gpudp_work_at()), within its declared span.
 */
struct gpudp_work_pkt {
	uint8_t *seg[GPUDP_WORK_SEGS_MAX];  /**< segment addresses (nb_segs of them) */
	uint32_t seg_len[GPUDP_WORK_SEGS_MAX]; /**< bytes in each segment */
	uint32_t nb_segs;   /**< 1.. GPUDP_WORK_SEGS_MAX */
	uint32_t pkt_len;   /**< the frame's length (sum of seg_len, except in staged
			     *   mode when the frame is longer than the work's span:
			     *   then only the span was copied and seg_len says so) */
	uint32_t index;     /**< the packet's index in its burst */
	uint32_t pad_;
	const void *params; /**< the work's parameter block (params_size bytes) */
	void *result;       /**< this packet's result (result_size bytes), or NULL when
			     *   result_size is 0; not cleared before the call: a work
			     *   with a result writes all of it */
	uint64_t *counters; /**< the work's counters for this burst, n_counters of them,
			     *   shared by every packet of the burst that the same
			     *   GPU block works on (shared memory): add with
			     *   gpudp_work_count(), which is atomic on the GPU */
	const struct gpudp_work_meta *meta; /**< the packet's metadata, or NULL when
					     *   the handoff was not given any
					     *   (gpudp_handoff_conf.meta) */
};

/**
 * Add @p v to counter @p k (0 .. n_counters - 1) of the work: an atomic
 * add in GPU shared memory on the GPU (threads of a block share the
 * counters), a plain add on the CPU.
 */
GPUDP_WORK_FN void
gpudp_work_count(struct gpudp_work_pkt *p, uint32_t k, uint64_t v)
{
#ifdef __CUDA_ARCH__
	atomicAdd((unsigned long long *)&p->counters[k], (unsigned long long)v);
#else
	p->counters[k] += v;
#endif
}

/**
 * Add @p v to the 64-bit word at @p w of the work's state (see "state"
 * below): atomic on the GPU and on the CPU, since the packets of a burst
 * run in parallel on the GPU and handoffs on several threads may share one
 * state (gpudp_handoff_conf.state_from).
 */
GPUDP_WORK_FN void
gpudp_work_state_add(uint64_t *w, uint64_t v)
{
#ifdef __CUDA_ARCH__
	atomicAdd((unsigned long long *)w, (unsigned long long)v);
#else
	__atomic_fetch_add(w, v, __ATOMIC_RELAXED);
#endif
}

/**
 * The packet's byte at offset @p off, across segments.
 * @param avail  set to the contiguous bytes from there (0: past the end)
 * @return its address, or NULL when off >= the bytes present
 */
GPUDP_WORK_FN uint8_t *
gpudp_work_at(const struct gpudp_work_pkt *p, uint32_t off, uint32_t *avail)
{
	uint32_t s;

	for (s = 0; s < p->nb_segs; s++) {
		if (off < p->seg_len[s]) {
			*avail = p->seg_len[s] - off;
			return p->seg[s] + off;
		}
		off -= p->seg_len[s];
	}
	*avail = 0;
	return NULL;
}

/**
 * A burst, as the CPU form of a work sees it (GPUDP_WORK_CPU builds the
 * per-packet calls from it). Segment k >= 1 of packet i is at
 * xaddr[i * (segs - 1) + k - 1] (length xlen[...], 0: no such segment).
 */
struct gpudp_work_burst {
	uint32_t n;              /**< packets */
	uint32_t segs;           /**< segments described per packet, 1.. */
	const uint64_t *addr;    /**< first segment of each packet */
	const uint32_t *len;     /**< its length */
	const uint64_t *xaddr;   /**< further segments (NULL when segs is 1) */
	const uint32_t *xlen;
	const void *params;
	uint8_t *verdict;        /**< per packet, written by the loop */
	uint8_t *result;         /**< n * result_size bytes, or NULL */
	uint32_t result_size;
	uint32_t n_reasons;      /**< verdicts above this count as GPUDP_WORK_DROP_ERROR */
	uint64_t *counters;      /**< the work's counters, zero on entry */
	const struct gpudp_work_meta *meta; /**< per packet metadata, or NULL */
};

/** Describe packet @p i of @p b in @p p (used by GPUDP_WORK_CPU). */
static inline void
gpudp_work_pkt_from_burst(struct gpudp_work_pkt *p, const struct gpudp_work_burst *b,
			  uint32_t i)
{
	uint32_t k;

	p->seg[0] = (uint8_t *)(uintptr_t)b->addr[i];
	p->seg_len[0] = b->len[i];
	p->pkt_len = b->len[i];
	p->nb_segs = 1;
	for (k = 1; k < b->segs; k++) {
		uint32_t l = b->xlen[(size_t)i * (b->segs - 1) + k - 1];

		if (l == 0)
			break;
		p->seg[k] = (uint8_t *)(uintptr_t)b->xaddr[(size_t)i * (b->segs - 1) + k - 1];
		p->seg_len[k] = l;
		p->pkt_len += l;
		p->nb_segs++;
	}
	p->index = i;
	p->params = b->params;
	p->result = b->result != NULL ? b->result + (size_t)i * b->result_size : NULL;
	p->counters = b->counters;
	p->meta = b->meta != NULL ? &b->meta[i] : NULL;
}

/** The CPU form of a work: a burst function. */
typedef void gpudp_work_cpu_fn(const struct gpudp_work_burst *b);

/**
 * Define @p name, the CPU form of per-packet function @p fn: a
 * gpudp_work_cpu_fn that runs fn on every packet of a burst and stores
 * the verdicts (out-of-range verdicts as GPUDP_WORK_DROP_ERROR).
 */
#define GPUDP_WORK_CPU(name, fn)                                               \
	static void name(const struct gpudp_work_burst *b_)                    \
	{                                                                      \
		struct gpudp_work_pkt p_;                                      \
		uint32_t i_, v_;                                               \
		for (i_ = 0; i_ < b_->n; i_++) {                               \
			gpudp_work_pkt_from_burst(&p_, b_, i_);                \
			v_ = fn(&p_);                                          \
			b_->verdict[i_] = (uint8_t)(v_ <= b_->n_reasons ? v_ : \
						    GPUDP_WORK_DROP_ERROR);    \
		}                                                              \
	}

/**
 * Parse the work's argument string (gpudp-fwd --work-arg) into its
 * parameter block.
 * @param arg     the string, or NULL when none was given
 * @param params  params_size bytes, zeroed
 * @param err     a message for the user on failure (NUL-terminated)
 * @return 0, or a negative errno (the work is not used)
 */
typedef int gpudp_work_init_fn(const char *arg, void *params, char *err, size_t err_len);

/**
 * Free what the work's init allocated for @p params (its tables). Called
 * once for every parameter block init filled successfully.
 */
typedef void gpudp_work_fini_fn(void *params);

/**
 * A table of a work: bytes its init builds in host memory (a lookup
 * table, an automaton) that the per-packet code reads through a pointer in
 * the parameter block. Init writes the table's host address and size at
 * the two offsets; in the GPU modes the handoff copies the table into GPU
 * memory once, at creation, and the GPU form sees the copy's address in
 * the same field; the CPU form reads the host table. A table of address or
 * size 0 is left alone. The table must not hold pointers (it is moved).
 */
struct gpudp_work_table {
	uint32_t ptr_off;   /**< offset in the parameters of a uint64_t: the address */
	uint32_t size_off;  /**< offset in the parameters of a uint64_t: the bytes */
};

/**
 * Merge a work's state into the caller's result (struct gpudp_work.collect):
 * called by gpudp_handoff_collect() with no burst in flight, each state
 * table read back into host memory.
 * @param params  the parameter block as the caller or init filled it (host
 *                addresses of its tables and states)
 * @param state   state[k]: a host copy of state table k, size[k] bytes,
 *                valid during the call only (may be modified)
 * @param size    size[k]: its bytes (0: the table was not allocated)
 * @param arg     gpudp_handoff_collect()'s argument: the caller's result
 * @return 0, or a negative errno that gpudp_handoff_collect() returns
 */
typedef int gpudp_work_collect_fn(const void *params, void *const *state,
				  const uint64_t *size, void *arg);

/** Descriptor of a work. Every pointer stays valid while the work is registered. */
struct gpudp_work {
	uint32_t abi;          /**< GPUDP_WORK_ABI it was built with (first field) */
	uint32_t size;         /**< sizeof(struct gpudp_work) it was built with */
	const char *name;      /**< [a-z0-9_-], 1..31 bytes; unique in the process */
	const char *summary;   /**< one line for --help and logs, or NULL */
	uint32_t span;         /**< bytes from the frame's start the work reads and
				*   writes; 0: the whole frame. staged mode copies
				*   this much into GPU memory */
	uint32_t wspan;        /**< bytes from the start it may write (<= span when span
				*   is set; 0: it writes none); staged mode copies them
				*   back. A work that writes past wspan loses those
				*   writes in staged mode */
	uint32_t result_size;  /**< bytes of result per packet, 0..GPUDP_WORK_RESULT_MAX */
	uint32_t params_size;  /**< bytes of parameters, 0..GPUDP_WORK_PARAMS_MAX */
	uint32_t n_reasons;    /**< drop reasons, 0..GPUDP_WORK_REASONS_MAX */
	uint32_t n_counters;   /**< per-burst counters, 0..GPUDP_WORK_COUNTERS_MAX */
	const char *const *reasons;  /**< names of verdicts 1..n_reasons ([a-z0-9_]) */
	const char *const *counters; /**< names of counters 0..n_counters-1 */
	gpudp_work_init_fn *init;    /**< parses the argument; NULL: takes none, and
				      *   the parameters are zero */
	gpudp_work_cpu_fn *cpu;      /**< CPU form (GPUDP_WORK_CPU); required */
	const void *gpu_image;       /**< GPU form: fatbin, cubin or PTX with
				      *   GPUDP_WORK_GPU; NULL: CPU modes only */
	size_t gpu_image_size;       /**< its bytes; 0: from its header (fatbin,
				      *   cubin) or its NUL (PTX) */
	uint32_t n_tables;           /**< tables, 0..GPUDP_WORK_TABLES_MAX */
	const struct gpudp_work_table *tables; /**< where they are in the parameters
						*   (8-byte aligned offsets) */
	gpudp_work_fini_fn *fini;    /**< frees what init allocated; required with
				      *   tables, else may be NULL */
	/* State: present when size > GPUDP_WORK_SIZE_NO_STATE */
	uint32_t n_states;           /**< state tables, 0..GPUDP_WORK_TABLES_MAX */
	uint32_t pad_;
	const struct gpudp_work_table *states; /**< where they are in the parameters
						*   (8-byte aligned offsets) */
	gpudp_work_collect_fn *collect; /**< merges the state into the caller's
					 *   result (gpudp_handoff_collect());
					 *   NULL: the caller reads it itself
					 *   (gpudp_handoff_state_read()) */
};

/**
 * Size of a descriptor built without the state fields (n_states and after):
 * such a work has no state, and gpudp accepts it as it is.
 */
#define GPUDP_WORK_SIZE_NO_STATE ((uint32_t)offsetof(struct gpudp_work, n_states))

/** The state tables of @p w: 0 for a descriptor without the state fields. */
static inline uint32_t
gpudp_work_n_states(const struct gpudp_work *w)
{
	return w->size > GPUDP_WORK_SIZE_NO_STATE ? w->n_states : 0;
}

/** The collect hook of @p w, or NULL (also for a descriptor without it). */
static inline gpudp_work_collect_fn *
gpudp_work_collect(const struct gpudp_work *w)
{
	return w->size > GPUDP_WORK_SIZE_NO_STATE ? w->collect : NULL;
}

/**
 * A work's state is what it writes and keeps across bursts (a flow table,
 * per-pattern counts), beside its read-only tables. Each state table is
 * described like a table (struct gpudp_work_table: its address and size in
 * the parameters). Init, or the caller that builds the parameter block
 * (gpudp_handoff_conf.params), writes its size and either 0 as its address
 * (the table starts zeroed) or the host address of its initial content.
 * The handoff allocates every state table where its mode runs the work (GPU
 * memory, in its CUDA context, in the GPU modes; host memory in the CPU
 * modes), fills it, and writes its address into the block the work sees;
 * the caller's block keeps its own addresses. Handoffs of the same work and
 * GPU may share one state (gpudp_handoff_conf.state_from): the GPU form
 * updates it atomically. The caller reads it back with
 * gpudp_handoff_state_read(), resets parts of it with
 * gpudp_handoff_state_write(), and at the end merges it into its result
 * through the work's collect hook (gpudp_handoff_collect()).
 */

/**
 * Embed the GPU image in file @p path (what nvcc -fatbin wrote; found
 * through the assembler's include path, -Wa,-I<dir>) as the byte array
 * @p sym, for the descriptor's gpu_image (gpu_image_size 0: a fatbin's or
 * cubin's header gives its size). A NUL byte follows, so a PTX text
 * embedded this way is terminated.
 */
#define GPUDP_WORK_IMAGE(sym, path)                                            \
	extern const unsigned char sym[];                                      \
	__asm__(".pushsection .rodata\n.balign 64\n"                           \
		".globl " #sym "\n.hidden " #sym "\n" #sym ":\n"               \
		".incbin \"" path "\"\n.byte 0\n.popsection\n")

/** Name of the symbol a work's shared object exports (GPUDP_WORK_EXPORT). */
#define GPUDP_WORK_ENTRY "gpudp_work_entry"

/**
 * Export descriptor @p desc from a work's shared object: gpudp_work_load()
 * finds it by the symbol GPUDP_WORK_ENTRY.
 */
#define GPUDP_WORK_EXPORT(desc)                                                \
	__attribute__((visibility("default"))) const struct gpudp_work *       \
	gpudp_work_entry(void);                                                \
	__attribute__((visibility("default"))) const struct gpudp_work *       \
	gpudp_work_entry(void)                                                 \
	{                                                                      \
		return &(desc);                                                \
	}

#ifndef __CUDACC__
/**
 * Validate and register a work (any thread, before it is used). The
 * descriptor is not copied: it stays the caller's.
 * @param err  receives why it was refused (may be NULL)
 * @return 0, or -EPROTO (built for another ABI: abi or size), -EINVAL
 *   (limits, names; says which), -ENOEXEC (the GPU image is not a fatbin,
 *   cubin or PTX, or is cut short), -EEXIST (a work of that name is
 *   registered), -ENOSPC (64 works are registered)
 */
int gpudp_work_register(const struct gpudp_work *w, char *err, size_t err_len);

/**
 * Check a work's descriptor as gpudp_work_register() does, without
 * registering it: ABI and size, limits, names, tables, the GPU image's
 * format. A handoff checks its work this way at creation.
 * @param err  receives why it was refused (may be NULL)
 * @return 0, or -EPROTO, -EINVAL or -ENOEXEC as gpudp_work_register()
 */
int gpudp_work_validate(const struct gpudp_work *w, char *err, size_t err_len);

/**
 * The registered work named @p name; the built-ins (macswap, ipv4, load)
 * are always registered.
 * @return the work, or NULL
 */
const struct gpudp_work *gpudp_work_find(const char *name);

/**
 * Open a work built outside gpudp: the shared object at @p path, whose
 * GPUDP_WORK_ENTRY returns its descriptor. The descriptor is checked
 * (ABI version first, then as gpudp_work_register() does, then the GPU
 * image's format) and registered. The object stays loaded for the life of
 * the process.
 * @param err  receives a message naming the file and the cause
 * @return the work, or NULL with rte_errno set: ENOENT (no file),
 *   ENOEXEC (not a shared object, no entry point, bad GPU image),
 *   EPROTO (ABI version mismatch), EINVAL (bad descriptor), EEXIST (a
 *   work of that name is registered), ENOSPC (64 works are registered)
 */
const struct gpudp_work *gpudp_work_load(const char *path, char *err, size_t err_len);

/**
 * Where the work came from: the path given to gpudp_work_load(), or
 * "built-in" / "registered" for the others.
 */
const char *gpudp_work_origin(const struct gpudp_work *w);

/**
 * Fill @p params (w->params_size bytes) from @p arg with the work's init
 * (zeroed first; a work without init accepts only NULL or "").
 * @return 0, or a negative errno with @p err set
 */
int gpudp_work_params(const struct gpudp_work *w, const char *arg, void *params,
		      char *err, size_t err_len);

/**
 * Release a parameter block gpudp_work_params() filled: the work's fini
 * (its tables). Nothing for a work without fini.
 */
void gpudp_work_params_release(const struct gpudp_work *w, void *params);

/**
 * The name of verdict @p v of work @p w: "pass", the work's reason names,
 * "error" for GPUDP_WORK_DROP_ERROR; NULL for codes it does not use.
 */
const char *gpudp_work_verdict_name(const struct gpudp_work *w, uint32_t v);

/**
 * Call @p fn for each registered work (registration order, built-ins
 * first). @return 0, or the first non-zero value fn returned.
 */
int gpudp_work_foreach(int (*fn)(const struct gpudp_work *w, void *arg), void *arg);
#endif

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_WORK_H */
