/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's direct reader (--reader direct, doc/capture-files.md "The
 * direct reader"): the --pcap files analysed by gpudp_cap_reader_run() without a PMD,
 * the matching records written to --filter-out in file order, the report.
 * A file's cut last record is counted in rx_errors, as net_pcap counts it;
 * a file that changed size while it was read is said, counted
 * (input_file.changed_while_read) and makes the exit status 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app_metrics.h"
#include "cap_app.h"
#include "gpudp_cap_reader.h"
#include "gpudp_capfile.h"

void
app_describe_files(struct cap_app *app)
{
	size_t off = snprintf(app->input_desc, sizeof(app->input_desc), "direct reader");
	unsigned int i;

	for (i = 0; i < app->n_files; i++) {
		app->expected_total += app->files[i].info.packets;
		if (off < sizeof(app->input_desc))
			off += snprintf(app->input_desc + off, sizeof(app->input_desc) - off,
					"%s%s", i ? ", " : ": ", app->files[i].path);
	}
}

/* What write_matches() reads, for gpudp_cap_reader_guarded(). */
struct wmatch {
	struct cap_app *app;
	struct gpudp_capfile *cf;
	const uint32_t *bits;
	uint64_t n;
	uint64_t seen;       /* records read */
	uint8_t *buf;        /* a matching record's bytes, copied out of the mapping */
};

/* The matching records among the first w->n to --filter-out. @return gpudp_capfile_next()'s */
static int
write_matched(void *arg)
{
	struct wmatch *w = arg;
	struct gpudp_capfile_rec r;
	int rc;

	while ((rc = gpudp_capfile_next(w->cf, &r)) == 1 && r.index < w->n) {
		w->seen = r.index + 1;
		if (!((w->bits[r.index / 32] >> (r.index % 32)) & 1))
			continue;
		/* copied first: a fault of the mapping is then never inside the
		 * writer. A write error is said and counted by the writer. */
		memcpy(w->buf, r.data, r.caplen);
		gpudp_pcapng_ring_write(w->app->out, w->buf, r.caplen, r.wirelen,
					r.ts_sec * 1000000000ull + r.ts_nsec);
	}
	return rc;
}

/*
 * The records of @p path whose bit is set, in file order, to --filter-out,
 * from its mapping (a read of it that faults, as the file shrank, ends the
 * pass).
 * @return 0, 1 (the file was not the @p size bytes read, ended before record
 *   @p n, or shrank under the pass: it changed) or a negative errno value
 */
static int
write_matches(struct cap_app *app, const char *path, const uint32_t *bits, uint64_t n,
	      uint64_t size)
{
	struct wmatch w = { .app = app, .bits = bits, .n = n };
	char err[512];
	int rc = gpudp_capfile_open(path, GPUDP_CAPFILE_MMAP, &w.cf, err, sizeof(err));

	if (rc != 0) {
		CAP_LOG(ERR, "--filter-out: %s", err);
		return rc;
	}
	w.buf = malloc(GPUDP_CAPFILE_MAX_SNAPLEN);
	if (w.buf == NULL)
		rc = -ENOMEM;
	else if (gpudp_cap_reader_guarded(write_matched, &w, &rc) != 0)
		rc = 1;   /* it shrank */
	else if (rc >= 0 && (gpudp_capfile_size(w.cf) != size || (rc == 0 && w.seen < n)))
		rc = 1;
	else if (rc > 0)
		rc = 0;
	free(w.buf);
	gpudp_capfile_close(w.cf);
	return rc;
}

/*
 * Whether @p f changed size while it was read: another size when the run
 * began, or at its end, than when it was inspected; a read that ended
 * early or faulted; other than the @p n records read (without a stop);
 * @p changed (--filter-out's pass found it so). Said and counted once a file.
 */
static void
check_changed(struct cap_app *app, const struct vdev_file *f,
	      const struct gpudp_cap_reader_stats *st, uint64_t n, int changed)
{
	int other = !app_stop_requested && st->records != n;
	struct stat sb;

	if (!changed && !st->changed && !other && st->size_start == f->info.size)
		return;
	CAP_LOG(WARNING, "%s changed size while it was read: %" PRIu64 " bytes when inspected, "
		"%" PRIu64 " when the direct reader began, %" PRIu64 " now; %" PRIu64 " packets "
		"read of the %" PRIu64 " inspected%s. The report covers what was read "
		"(input_file.changed_while_read); exit status 1", f->path, f->info.size,
		st->size_start, stat(f->path, &sb) == 0 ? (uint64_t)sb.st_size : st->size_end,
		st->records, n, app_stop_requested ? " (stopped)" : "");
	if (!f->info.changed)   /* else counted when inspected */
		app->files_changed++;
}

/* One file through the direct reader, into app->result. */
static int
run_file(struct cap_app *app, const struct vdev_file *f, uint64_t limit,
	 struct gpudp_cap_reader_stats *st)
{
	uint64_t n = limit != 0 && limit < f->info.packets ? limit : f->info.packets;
	struct gpudp_cap_reader_conf fc = {
		.path = f->path, .engine = app->engine_name, .ec = app->eng.conf,
		/* a limit only when one applies, or verdicts by record are kept
		 * (their bitmap has n bits: a file grown since it was inspected
		 * is read no further); without, large pcap files are split by
		 * byte ranges (gpudp_cap_reader.h) */
		.threads = app->conf.threads,
		.max_records = n < f->info.packets || app->out != NULL ? n : 0,
		.stop = (volatile int *)&app_stop_requested,
		.cpus = app->have_cpus ? &app->cpus : NULL,
	};
	char err[320];
	int rc, changed = 0;

	if (app->out != NULL && n > 0) {
		fc.match_bits = calloc((n + 31) / 32, sizeof(uint32_t));
		if (fc.match_bits == NULL)
			return -ENOMEM;
	}
	rc = gpudp_cap_reader_run(&fc, app->result, st, err, sizeof(err));
	if (rc != 0 && rc != -ENOSPC) {
		CAP_LOG(ERR, "%s: %s", f->path, err);
		if (st->changed)
			CAP_LOG(WARNING, "%s changed size while it was read (%" PRIu64 " bytes when "
				"inspected, %" PRIu64 " at the end): the error may be of bytes that "
				"were not there when it was inspected", f->path, f->info.size,
				st->size_end);
	} else if (fc.match_bits != NULL) {
		changed = write_matches(app, f->path, fc.match_bits, n, st->size_start);
		if (changed < 0)
			rc = -EIO;
	}
	free(fc.match_bits);
	if (rc == 0 || rc == -ENOSPC)
		check_changed(app, f, st, n, changed > 0);
	return rc == -ENOSPC ? 0 : rc;
}

/* A file's figures into the app's (the report's engine and rx sections). */
static void
add_stats(struct cap_app *app, const struct gpudp_cap_reader_stats *st)
{
	app->rx_total += st->records;
	app->rx_errors += st->errors;   /* a cut last record, as net_pcap counts it */
	if (cap_conf_flows_on(&app->conf)) {
		app->flow_table.scans += st->flows.scans;
		app->flow_table.evictions += st->flows.evictions;
		app->flow_table.look_ns += st->flows.look_ns;
		app->flow_table.look_wait_ns += st->flows.look_wait_ns;
		app->flow_table.in_use = st->flows.in_use;
		app->flow_table.capacity = st->flows.capacity;
	}
	gpudp_cap_engine_stats_add(&app->eng.st, &st->eng);
}

int
app_run_direct(struct cap_app *app)
{
	struct gpudp_cap_reader_stats st;
	double secs = 0;
	unsigned int i;
	int rc = 0;

	/* each thread makes an engine of its own from this one's configuration */
	memset(&app->eng.st.pkts, 0, sizeof(app->eng.st) - sizeof(app->eng.st.device));
	for (i = 0; rc == 0 && i < app->n_files && !app_stop_requested; i++) {
		uint64_t limit = app->conf.max_packets;

		if (limit != 0 && app->rx_total >= limit)
			break;
		rc = run_file(app, &app->files[i], limit != 0 ? limit - app->rx_total : 0, &st);
		add_stats(app, &st);
		app_metrics_live(app);
		secs += st.seconds;
	}
	if (rc != 0)
		return rc;
	CAP_LOG(INFO, "direct reader: %" PRIu64 " packets in %.3f s (%.1f Mpps, %u thread%s)",
		app->rx_total, secs, secs > 0 ? app->rx_total / secs / 1e6 : 0.0,
		app->conf.threads, app->conf.threads > 1 ? "s" : "");
	rc = app_report(app, secs, 1);
	/* the report is of files that changed while they were read: exit 1 */
	return rc == 0 && app->files_changed > 0 ? -ESTALE : rc;
}
