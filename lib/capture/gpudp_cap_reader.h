/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_capture's threaded reader: a capture file analysed by several host
 * threads, without a PMD (gpudp-capture's `--reader direct`,
 * doc/capture-engines.md). Each of conf.threads threads opens the file with
 * lib/capfile's reader (gpudp_capfile.h: the record-by-record reader,
 * here mapped, GPUDP_CAPFILE_MMAP) and stages its share of the records
 * into batches of an engine of its own (gpudp_cap_engine.h; its own
 * handoff and streams on the GPU).
 *
 * The shares: a pcap file of at least range_min bytes a thread, read
 * without a record limit or verdicts by record, is split into byte ranges,
 * each thread finding its first record and the split checked afterwards;
 * other pcap files in chunks of GPUDP_CAP_READER_CHUNK records dealt
 * round-robin, whose starts the calling thread publishes as it walks the
 * record lengths; pcapng files in the same chunks, each thread walking the
 * whole file (a record's meaning depends on the blocks before it). Copies
 * of a byte range land in the batches in bulk (read into a batch's data
 * area, or lent from conf.mem) and are described where they landed
 * (gpudp_capfile_parse_descs()); every other record is staged one by one,
 * copied or in place.
 *
 * The GPU engines of a run share one set of tables in GPU memory
 * (gpudp_cap_engine_conf.share), read back once at the end; the CPU
 * engines' results are merged into one analysis object. The analysis state
 * is only ever added to, so the result is the one a single thread gives,
 * whatever the order.
 *
 * The filter's verdicts are kept per record (bit i: record i of the run),
 * so that the matching records can be written in file order afterwards.
 * A file that ends inside a record is read up to it, and that record
 * counted (gpudp_cap_reader_stats.errors); a file that changes size while
 * it is read is read as far as it is there (a fault of a mapping that
 * shrank stops the thread, caught for the run) and said so
 * (gpudp_cap_reader_stats.changed). No EAL is needed.
 */
#ifndef GPUDP_CAP_READER_H
#define GPUDP_CAP_READER_H

#include <sched.h>
#include <stdint.h>

#include "gpudp_analysis.h"
#include "gpudp_cap_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Records a thread takes at a time, by default (gpudp_cap_reader_conf.chunk). */
#define GPUDP_CAP_READER_CHUNK 4096u
/** Most threads. */
#define GPUDP_CAP_READER_THREADS_MAX 64u

/**
 * How records reach the engines (gpudp_cap_reader_conf.stage). Copies:
 * each thread copies its records into staged batches (for the GPU engine,
 * pinned host memory that the GPU gathers from). In place: a pcap file is
 * mapped once for every thread and, for the GPU engine, registered with
 * the GPU (gpudp_cap_engine_host_register(): pinned read-only); batches
 * describe each record where it is in the mapping (GPUDP_CAP_MEM_HOST),
 * with no copy on the host. Registering costs time in proportion to the
 * file (more than copying every record), so copies are the default; in
 * place is there to measure and for hosts where registering is cheap.
 */
enum gpudp_cap_reader_stage {
	/** the default: copies */
	GPUDP_CAP_READER_STAGE_AUTO = 0,
	/** each record copied into a staged batch by its thread */
	GPUDP_CAP_READER_STAGE_COPY,
	/** in place; the GPU gathers each record into GPU memory, then analyses it */
	GPUDP_CAP_READER_STAGE_GATHER,
	/** in place; the GPU's analysis kernel reads each record where it is */
	GPUDP_CAP_READER_STAGE_READ,
};

/**
 * @param s  a stage
 * @return its name ("auto", "copy", "gather", "read"), or "?"
 */
const char *gpudp_cap_reader_stage_name(enum gpudp_cap_reader_stage s);

/**
 * Parse a stage's name.
 *
 * @param name  "auto", "copy", "gather" or "read"
 * @param s     set to the stage
 * @return 0, or -EINVAL for an unknown name
 */
int gpudp_cap_reader_stage_parse(const char *name, enum gpudp_cap_reader_stage *s);

/** What to run. */
struct gpudp_cap_reader_conf {
	const char *path;            /**< a capture file checked by gpudp_capfile_inspect() */
	const char *engine;          /**< "cpu" or "gpu" */
	struct gpudp_cap_engine_conf ec; /**< each thread's engine (done and mem are set here) */
	uint32_t threads;            /**< 1 .. GPUDP_CAP_READER_THREADS_MAX */
	uint32_t chunk;              /**< records a thread takes at a time, a multiple of 32
				      *   (whole words of match_bits); 0: GPUDP_CAP_READER_CHUNK */
	uint64_t max_records;        /**< read no record past this many (0: all) */
	uint32_t *match_bits;        /**< NULL, or a bitmap of max_records (or the file's
				      *   record count) bits, zeroed: filled with the filter's
				      *   verdicts by record (give max_records where the file
				      *   may grow while it is read) */
	volatile int *stop;          /**< non-zero: stop early (SIGINT), may be NULL */
	/** CPUs the threads may run on (NULL: the calling thread's, which
	 *  EAL has pinned to its main lcore in the app) */
	const cpu_set_t *cpus;
	/** pcap files without max_records and match_bits: each thread takes a
	 *  byte range of at least this many bytes (0: 4 MiB); smaller files, or
	 *  ranges that do not join, go through the shared walk */
	uint64_t range_min;
	/** how records reach the engines; AUTO (0) by default */
	enum gpudp_cap_reader_stage stage;
	/** copies from byte ranges: bytes a thread reads at once into a batch
	 *  (0: 256 KiB) */
	uint32_t read_bytes;
	/**
	 * A pcap file's bytes already in memory (NULL: none): mem_len bytes,
	 * the file's size, 16-byte aligned and readable up to mem_len rounded
	 * up to 16 (for the GPU engine: pinned, or registered with
	 * gpudp_cap_engine_host_register(), by the caller, who keeps them
	 * unchanged during the run). With byte ranges and stage AUTO or COPY,
	 * each thread describes its records where they are there, and its
	 * batches take those bytes as their own (gpudp_cap_batch_lend()): no
	 * read and no copy on the host. Where the shared walk reads the file (ranges that
	 * do not join, a small file), it is read as without it.
	 */
	const uint8_t *mem;
	uint64_t mem_len;            /**< the bytes at mem */
};

/** What a run did. */
struct gpudp_cap_reader_stats {
	uint64_t records;            /**< records analysed */
	uint64_t bytes;              /**< their captured bytes */
	struct gpudp_cap_engine_stats eng; /**< the engines' stats, summed (busy_ms too) */
	double seconds;              /**< wall time from the threads' start to the merge's end */
	double read_s;               /**< of which until every thread had its result */
	double collect_s;            /**< of which, on the slowest thread, reading its
				      *   engine's tables back (in read_s) */
	double merge_s;              /**< of which merging the threads' results */
	double staged_s;             /**< of which until the last thread had submitted its
				      *   last batch */
	double flushed_s;            /**< of which until the last thread's last batch was done */
	int ranges;                  /**< the threads read byte ranges (else the shared walk) */
	int in_memory;               /**< they read conf.mem (byte ranges only) */
	/** how the records reached the engines (never AUTO) */
	enum gpudp_cap_reader_stage stage;
	double register_s;           /**< in place: mapping and registering the file (in seconds) */
	/** records it could not read: 1 when the file ends inside a record or
	 *  block and the run read up to it (not stopped, no max_records below
	 *  the complete records): its complete records are read, that one is
	 *  not (net_pcap counts libpcap's error on it once, in ierrors); else 0 */
	uint64_t errors;
	uint64_t trunc_offset;       /**< where that incomplete record or block starts */
	/** the file's size changed while it was read: another size where a
	 *  thread opened it or at the end than when the run began, a read
	 *  ending before that size, or a read of its mapping that faulted (it
	 *  shrank: that thread read no more; the run goes on, its result is
	 *  what was read) */
	int changed;
	uint64_t size_start;         /**< its size when the run began */
	uint64_t size_end;           /**< and when it ended */
	/** the flow monitor (conf.ec.life): its table's looks, evictions,
	 *  slots in use at the last look and capacity
	 *  (gpudp_cap_engine_flow_stats(); its record counts are the export
	 *  function's to keep) */
	struct gpudp_flow_life_stats flows;
};

/**
 * A pcap file read into memory for gpudp_cap_reader_conf.mem
 * (gpudp-capture-bench --memory, and its test): its bytes in an anonymous
 * mapping of 2 MiB pages where the kernel gives them, 16-byte aligned and
 * readable past their end up to the mapping's, optionally registered with
 * the GPU.
 */
struct gpudp_cap_reader_mem {
	uint8_t *buf;            /**< the file's bytes (NULL: none) */
	uint64_t len;            /**< the file's size */
	size_t alloc;            /**< the mapping's: len + 16 rounded up to 2 MiB */
	/** gpudp_cap_reader_mem_register()'s engine (ops NULL: none) */
	struct gpudp_cap_engine reg;
	double load_s;           /**< reading the file */
	double register_s;       /**< registering the copy */
};

/**
 * Read the whole file at @p path into @p m (zeroed first).
 *
 * @param m       filled (free it with gpudp_cap_reader_mem_free())
 * @param path    the file
 * @param err     on failure, why (the file, its size)
 * @param errlen  size of @p err
 * @return 0, or a negative errno value: open()'s or fstat()'s, -ENOMEM
 *   (no memory for the copy), -EIO (a read failed, or the file shrank)
 */
int gpudp_cap_reader_mem_load(struct gpudp_cap_reader_mem *m, const char *path, char *err,
			      size_t errlen);

/**
 * Register @p m's copy with GPU @p gpu_device for every context, through
 * an engine of its own that gpudp_cap_reader_mem_free() destroys (one
 * registration serves every GPU engine of the process on that GPU).
 *
 * @param m           loaded by gpudp_cap_reader_mem_load()
 * @param gpu_device  CUDA device ordinal
 * @param err         on failure, why
 * @param errlen      size of @p err
 * @return 0, or the engine's error (-ENOTSUP: a build without CUDA, or the
 *   driver refused; -ENODEV: no GPU; -EIO: a CUDA call failed; err says why)
 */
int gpudp_cap_reader_mem_register(struct gpudp_cap_reader_mem *m, int gpu_device, char *err,
				  size_t errlen);

/**
 * Unregister and unmap a copy (after every run that reads it).
 *
 * @param m  loaded, or zeroed
 */
void gpudp_cap_reader_mem_free(struct gpudp_cap_reader_mem *m);

/**
 * Analyse the file with conf->threads threads and add the result into
 * @p out (counters, flows, fragments and, when @p out has the engines'
 * database, per-pattern counts).
 * While it runs, a handler of its own takes SIGBUS (the previous one is
 * back when it returns): not two runs at once in one process.
 *
 * @param conf    what to run
 * @param out     added to: an analysis object with the engines' filter and
 *                flow capacity at least theirs
 * @param st      filled with what the run did
 * @param err     on failure, why (a thread's engine, a read error)
 * @param errlen  size of @p err
 * @return 0, or a negative errno value: -EINVAL (bad conf), -ENOTSUP (a
 *   stage in place asked for that cannot be: a pcapng file, a GPU that
 *   cannot register the file), the engine's error (-ENODEV: no GPU, ...),
 *   -EIO (a read error: gpudp_capfile_error()'s text in err), -ENOSPC
 *   (some flows did not fit @p out: counted as drops), -ESTALE (in place,
 *   the file shrank under the run). A file that changed size is not an
 *   error otherwise: see st->changed.
 */
int gpudp_cap_reader_run(const struct gpudp_cap_reader_conf *conf, struct gpudp_analysis *out,
			 struct gpudp_cap_reader_stats *st, char *err, size_t errlen);

/**
 * fn(arg), its reads of mapped capture files (GPUDP_CAPFILE_MMAP) guarded
 * as gpudp_cap_reader_run()'s are: a read that faults (SIGBUS: the file
 * shrank under the mapping) returns here instead of ending the process.
 * fn must hold no lock where it reads a mapping (copy the bytes out before
 * stdio sees them). Not while gpudp_cap_reader_run() runs.
 *
 * @param fn   the function
 * @param arg  its argument
 * @param rc   set to its result when it returned
 * @return 0 (*rc: fn's result), or 1 (a read faulted; *rc is not set)
 */
int gpudp_cap_reader_guarded(int (*fn)(void *), void *arg, int *rc);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_CAP_READER_H */
