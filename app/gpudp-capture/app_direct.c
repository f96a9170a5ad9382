/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's direct reader (--reader direct, doc/capture.md "Direct
 * reading"): the --pcap files analysed by cap_file_run() without a PMD,
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
#include <time.h>

#include "cap_app.h"
#include "cap_file.h"
#include "capfile.h"

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

/*
 * The records of @p path whose bit is set, in file order, to --filter-out.
 * Read through stdio, not mapped: a file that shrinks meanwhile ends early
 * (no fault), which is told as a change.
 * @return 0, 1 (the file was not the @p size bytes read, or ended before
 *   record @p n: it changed) or a negative errno value
 */
static int
write_matches(struct cap_app *app, const char *path, const uint32_t *bits, uint64_t n,
	      uint64_t size)
{
	struct capfile *cf;
	struct capfile_rec r;
	char err[512];
	uint64_t seen = 0;
	int rc = capfile_open(path, 0, &cf, err, sizeof(err));

	if (rc != 0) {
		CAP_LOG(ERR, "--filter-out: %s", err);
		return rc;
	}
	while ((rc = capfile_next(cf, &r)) == 1 && r.index < n) {
		seen = r.index + 1;
		if (!((bits[r.index / 32] >> (r.index % 32)) & 1))
			continue;
		if (gpudp_pcapng_write(app->out, r.data, r.caplen, r.wirelen,
				       r.ts_sec * 1000000000ull + r.ts_nsec) != 0) {
			CAP_LOG(ERR, "--filter-out %s: write failed; no more packets are written",
				app->conf.filter_out);
			app->out_failed = 1;
			break;
		}
		app->filter_written++;
	}
	if (rc >= 0 && (capfile_size(cf) != size || (rc == 0 && seen < n)))
		rc = 1;
	else if (rc > 0)
		rc = 0;
	capfile_close(cf);
	return rc;
}

/*
 * Whether @p f changed size while it was read: another size when the run
 * began, or at its end, than when it was inspected; a read that ended
 * early or faulted; other than the @p n records read (without a stop);
 * @p changed (--filter-out's pass found it so). Said and counted once a file.
 */
static void
check_changed(struct cap_app *app, const struct vdev_file *f, const struct cap_file_stats *st,
	      uint64_t n, int changed)
{
	int other = !app_stop_requested && st->records != n;

	if (!changed && !st->changed && !other && st->size_start == f->info.size)
		return;
	CAP_LOG(WARNING, "%s changed size while it was read: %" PRIu64 " bytes when inspected, "
		"%" PRIu64 " when the direct reader began, %" PRIu64 " at its end; %" PRIu64
		" packets read of the %" PRIu64 " inspected%s. The report covers what was read "
		"(input_file.changed_while_read); exit status 1", f->path, f->info.size,
		st->size_start, st->size_end, st->records, n, app_stop_requested ? " (stopped)" :
		"");
	if (!f->info.changed)   /* else counted when inspected */
		app->files_changed++;
}

/* One file through the direct reader, into app->result. */
static int
run_file(struct cap_app *app, const struct vdev_file *f, uint64_t limit,
	 struct cap_file_stats *st)
{
	uint64_t n = limit != 0 && limit < f->info.packets ? limit : f->info.packets;
	struct cap_file_conf fc = {
		.path = f->path, .engine = app->engine_name, .ec = app->eng.conf,
		/* a limit only when one applies, or verdicts by record are kept
		 * (their bitmap has n bits: a file grown since it was inspected
		 * is read no further); without, large pcap files are split by
		 * byte ranges (cap_file.h) */
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
	rc = cap_file_run(&fc, app->result, st, err, sizeof(err));
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
add_stats(struct cap_app *app, const struct cap_file_stats *st)
{
	app->rx_total += st->records;
	app->rx_errors += st->errors;   /* a cut last record, as net_pcap counts it */
	cap_engine_stats_add(&app->eng.st, &st->eng);
}

int
app_run_direct(struct cap_app *app)
{
	struct cap_file_stats st;
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
