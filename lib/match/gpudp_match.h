/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_match: multi-pattern byte matching for payload inspection
 * (doc/match.md). A pattern file names byte patterns (literals with hex
 * escapes, optionally case-insensitive); gpudp_match_compile() turns them
 * into one flat database, an Aho-Corasick automaton as a dense transition
 * table (one for the case-sensitive patterns, one over folded bytes for
 * the case-insensitive ones), that is position-independent: it can be
 * copied to GPU memory as it is. gpudp_match_scan() finds every
 * occurrence of every pattern in a buffer (occurrences may overlap), on
 * the CPU or in a GPU thread: the same inline code for both, as the
 * analysis's gpudp_analysis_pkt.h.
 *
 * Plain C11 (and nvcc for the scan); no DPDK or CUDA dependency.
 */
#ifndef GPUDP_MATCH_H
#define GPUDP_MATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define GPUDP_MATCH_FN static __host__ __device__ __forceinline__
#else
#define GPUDP_MATCH_FN static inline
#endif

/** Most patterns in a database. */
#define GPUDP_MATCH_PATTERNS_MAX 65536
/** Longest pattern, bytes. */
#define GPUDP_MATCH_LEN_MAX 255
/** Longest pattern name, bytes with the NUL. */
#define GPUDP_MATCH_NAME_MAX 64
/** Database format version (struct gpudp_match_db.version). */
#define GPUDP_MATCH_DB_VERSION 2
/**
 * A move of the automaton (off_delta's entries) with this bit set goes to a
 * state where patterns end; the state is the entry without it.
 */
#define GPUDP_MATCH_ENDS 0x80000000u
/** Pattern flag: ASCII letters match either case. */
#define GPUDP_MATCH_NOCASE 1u

/** One pattern, as parsed. */
struct gpudp_match_pattern {
	char name[GPUDP_MATCH_NAME_MAX]; /**< [A-Za-z0-9_.-], unique in a set */
	uint8_t bytes[GPUDP_MATCH_LEN_MAX]; /**< the literal */
	uint32_t len;                    /**< 1..GPUDP_MATCH_LEN_MAX */
	uint32_t flags;                  /**< GPUDP_MATCH_NOCASE */
	uint32_t line;                   /**< line of the pattern file */
};

/**
 * A compiled database: this header, then its arrays, all addressed by
 * byte offsets from the header, so that one copy of size bytes is the whole
 * database wherever it lies (host or GPU memory).
 */
struct gpudp_match_db {
	uint32_t magic;          /**< "gpdm" */
	uint32_t version;        /**< GPUDP_MATCH_DB_VERSION */
	uint64_t size;           /**< bytes of the database, header included */
	uint32_t n_patterns;
	uint32_t n_states[2];    /**< [0]: case-sensitive automaton, [1]: folded; 0: none */
	uint32_t pad;
	uint64_t off_delta[2];   /**< uint32_t[n_states][256]: next state, with
				  *   GPUDP_MATCH_ENDS where patterns end there */
	uint64_t off_first[2];   /**< uint32_t[n_states + 1]: state s's patterns are
				  *   outs[first[s] .. first[s + 1]) */
	uint64_t off_outs[2];    /**< uint32_t[]: pattern indices ending in each state
				  *   (its own and its suffixes', through failure links) */
	uint64_t off_pat;        /**< uint32_t[n_patterns][3]: offset of its bytes in
				  *   the byte area, length, flags */
	uint64_t off_bytes;      /**< uint8_t[]: the patterns' bytes */
};

/**
 * Parse a pattern file (doc/match.md): one pattern a line,
 * `NAME PATTERN [nocase]`, PATTERN a double-quoted literal with the
 * escapes \\ \" \n \r \t \0 \xHH, or a bare word of printable bytes; blank
 * lines and lines starting with '#' are skipped.
 * @param text  the file's bytes (need not end with a NUL)
 * @param pats  set to an array of *n patterns (free() it), NULL on error
 * @param err   on error, "line L: what" naming the offending text
 * @return 0, or -EINVAL (bad line; err says which), -ENOSPC (over
 *   GPUDP_MATCH_PATTERNS_MAX), -ENOMEM
 */
int gpudp_match_parse(const char *text, size_t len, struct gpudp_match_pattern **pats,
		      uint32_t *n, char *err, size_t err_len);

/**
 * Compile @p n patterns into a database (malloc'd in one piece: free() it).
 * @return the database, or NULL with @p err set (no patterns, too many
 *   states for 32-bit indices, out of memory)
 */
struct gpudp_match_db *gpudp_match_compile(const struct gpudp_match_pattern *pats, uint32_t n,
					   char *err, size_t err_len);

/**
 * Read, parse and compile the pattern file at @p path.
 * @param pats  if not NULL, set to the parsed patterns (free() them), *n
 *   to their count: their names, in the database's pattern order
 * @param err   on failure, "PATH: why" (line and text for a bad line)
 * @return the database (free() it), or NULL
 */
struct gpudp_match_db *gpudp_match_load(const char *path, struct gpudp_match_pattern **pats,
					uint32_t *n, char *err, size_t err_len);

/** ASCII lower case. */
GPUDP_MATCH_FN uint8_t
gpudp_match_fold(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

/** Base address of database array at byte offset @p off. */
#define GPUDP_MATCH_AT(db, type, off) ((const type *)((const uint8_t *)(db) + (off)))

/**
 * Whether pattern @p p of @p db occurs in @p d with its last byte before
 * index @p end (a plain compare: the scan's fallback for telling a
 * pattern's first occurrence in a buffer from a later one).
 */
GPUDP_MATCH_FN int
gpudp_match_occurs_before(const struct gpudp_match_db *db, uint32_t p, const uint8_t *d,
			  uint32_t end)
{
	const uint32_t *pat = GPUDP_MATCH_AT(db, uint32_t, db->off_pat) + 3 * (size_t)p;
	const uint8_t *b = GPUDP_MATCH_AT(db, uint8_t, db->off_bytes) + pat[0];
	uint32_t l = pat[1], s, k;

	for (s = 0; s + l <= end; s++) {
		for (k = 0; k < l; k++) {
			uint8_t c = d[s + k];

			if ((pat[2] & GPUDP_MATCH_NOCASE) ? gpudp_match_fold(c) !=
			    gpudp_match_fold(b[k]) : c != b[k])
				break;
		}
		if (k == l)
			return 1;
	}
	return 0;
}

/**
 * How gpudp_match_scan() adds to a counter: plain on the CPU, atomic in
 * GPU code (many threads count into the same arrays).
 */
#ifdef __CUDA_ARCH__
#define GPUDP_MATCH_ADD(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#else
#define GPUDP_MATCH_ADD(p, v) (*(p) += (v))
#endif

/**
 * One byte @p b through automaton @p a (0: case-sensitive, 1: folded) of
 * @p db from state *@p s (updated); the patterns that end there are
 * outs[*lo .. *hi) of the returned array (none: *lo == *hi, also when the
 * database has no such automaton).
 */
GPUDP_MATCH_FN const uint32_t *
gpudp_match_step(const struct gpudp_match_db *db, uint32_t a, uint32_t *s, uint8_t b,
		 uint32_t *lo, uint32_t *hi)
{
	const uint32_t *first;

	uint32_t t;

	*lo = *hi = 0;
	if (db->n_states[a] == 0)
		return NULL;
	t = GPUDP_MATCH_AT(db, uint32_t, db->off_delta[a])[(size_t)*s * 256 +
		(a == 0 ? b : gpudp_match_fold(b))];
	*s = t & ~GPUDP_MATCH_ENDS;
	if (!(t & GPUDP_MATCH_ENDS))
		return NULL;
	first = GPUDP_MATCH_AT(db, uint32_t, db->off_first[a]);
	*lo = first[*s];
	*hi = first[*s + 1];
	return GPUDP_MATCH_AT(db, uint32_t, db->off_outs[a]);
}

/** Distinct patterns a scan remembers before it re-checks by compare. */
#define GPUDP_MATCH_SEEN 16

/**
 * Whether the occurrence of pattern @p p ending at index @p i of @p d is
 * its first in @p d: the scan remembers the first GPUDP_MATCH_SEEN
 * patterns it found in @p seen (*@p n_seen counts every pattern found, 0
 * at the start of a buffer) and compares bytes for the others.
 */
GPUDP_MATCH_FN int
gpudp_match_fresh(const struct gpudp_match_db *db, uint32_t p, const uint8_t *d, uint32_t i,
		  uint32_t *seen, uint32_t *n_seen)
{
	uint32_t k;

	for (k = 0; k < *n_seen && k < GPUDP_MATCH_SEEN; k++)
		if (seen[k] == p)
			return 0;
	if (*n_seen >= GPUDP_MATCH_SEEN && gpudp_match_occurs_before(db, p, d, i))
		return 0;
	if (*n_seen < GPUDP_MATCH_SEEN)
		seen[*n_seen] = p;
	(*n_seen)++;
	return 1;
}

/**
 * Scan @p len bytes at @p d for every pattern of @p db: for each
 * occurrence of pattern p, occ[p] += 1; for each pattern that occurs at
 * least once, pkts[p] += 1 (either array may be NULL).
 * @return the occurrences found (every pattern)
 */
GPUDP_MATCH_FN uint64_t
gpudp_match_scan(const struct gpudp_match_db *db, const uint8_t *d, uint32_t len,
		 uint64_t *occ, uint64_t *pkts)
{
	uint32_t seen[GPUDP_MATCH_SEEN];
	uint32_t n_seen = 0, i, a, s[2] = { 0, 0 };
	uint64_t total = 0;

	for (i = 0; i < len; i++) {
		for (a = 0; a < 2; a++) {
			const uint32_t *outs;
			uint32_t j, lo, hi;

			outs = gpudp_match_step(db, a, &s[a], d[i], &lo, &hi);
			for (j = lo; j < hi; j++) {
				uint32_t p = outs[j];

				total++;
				if (occ != NULL)
					GPUDP_MATCH_ADD(&occ[p], 1);
				if (pkts != NULL && gpudp_match_fresh(db, p, d, i, seen, &n_seen))
					GPUDP_MATCH_ADD(&pkts[p], 1);
			}
		}
	}
	return total;
}

/**
 * Every occurrence of every pattern of @p db in @p len bytes at @p d, in
 * the order the scan finds them (by end): @p fn(@p arg, pattern, end) with
 * end the index one past the occurrence's last byte. Host code (the rules
 * prefilter, lib/rules).
 * @return the occurrences found
 */
static inline uint64_t
gpudp_match_each(const struct gpudp_match_db *db, const uint8_t *d, uint32_t len,
		 void (*fn)(void *arg, uint32_t pattern, uint32_t end), void *arg)
{
	uint32_t i, a, j, lo, hi, s[2] = { 0, 0 };
	uint64_t total = 0;

	for (i = 0; i < len; i++) {
		for (a = 0; a < 2; a++) {
			const uint32_t *outs = gpudp_match_step(db, a, &s[a], d[i], &lo, &hi);

			for (j = lo; j < hi; j++)
				fn(arg, outs[j], i + 1);
			total += hi - lo;
		}
	}
	return total;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_MATCH_H */
