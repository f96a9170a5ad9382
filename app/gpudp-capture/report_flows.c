/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow monitor's part of gpudp-capture's report (report.h): flows
 * ended by reason, records and their packets, and each output's counts
 * (the IPFIX targets, the NDJSON flow log).
 */
#include <inttypes.h>
#include <string.h>

#include <gpudp_flow_log.h>

#include "report.h"

/* the JSON's names of enum gpudp_flow_end 1..5 */

uint64_t
cap_report_flows_dropped(const struct cap_report_flows *f)
{
	uint64_t n = f->log_path != NULL ? f->log.dropped : 0;
	unsigned int i;

	for (i = 0; i < f->n_ipfix; i++)
		n += f->ipfix[i].dropped;
	return n;
}

void
cap_report_flows_table(FILE *f, const struct cap_report_flows *fl)
{
	const struct gpudp_flow_life_stats *l = &fl->life;
	unsigned int i;

	fprintf(f, "\nflows      %" PRIu64 " records of %" PRIu64 " packets; by end: idle %" PRIu64
		", active %" PRIu64 ", end %" PRIu64 ", forced %" PRIu64 ", lack of resources %"
		PRIu64 "\n", l->records, l->pkts, l->ended[GPUDP_FLOW_END_IDLE],
		l->ended[GPUDP_FLOW_END_ACTIVE], l->ended[GPUDP_FLOW_END_EOF],
		l->ended[GPUDP_FLOW_END_FORCED], l->ended[GPUDP_FLOW_END_RESOURCES]);
	fprintf(f, "           table: %u of %u slots in use at the last of %" PRIu64 " looks, %"
		PRIu64 " of which made room; the looks took %.3f ms, %.3f ms of it waiting "
		"for the batches in flight\n", fl->table.in_use, fl->table.capacity,
		fl->table.scans, fl->table.evictions, (double)fl->table.look_ns / 1e6,
		(double)fl->table.look_wait_ns / 1e6);
	for (i = 0; i < fl->n_ipfix; i++)
		fprintf(f, "           IPFIX %s: %" PRIu64 " records in %" PRIu64 " messages, %"
			PRIu64 " dropped, %" PRIu64 " errors\n", fl->ipfix_name[i],
			fl->ipfix[i].records, fl->ipfix[i].messages, fl->ipfix[i].dropped,
			fl->ipfix[i].errors);
	if (fl->log_path != NULL)
		fprintf(f, "           flow log %s: %" PRIu64 " records, %" PRIu64 " dropped%s%s\n",
			fl->log_path, fl->log.records, fl->log.dropped,
			fl->log.error != 0 ? ": " : "",
			fl->log.error != 0 ? strerror(-fl->log.error) : "");
	if (fl->export_waits != 0)
		fprintf(f, "           the analysis waited %" PRIu64 " times for the outputs "
			"(their queue was full)\n", fl->export_waits);
}

void
cap_report_flows_json(struct gpudp_json *j, const struct cap_report_flows *fl)
{
	const struct gpudp_flow_life_stats *l = &fl->life;
	unsigned int i;

	gpudp_json_obj(j, "flow_export");
	gpudp_json_u64(j, "records", l->records);
	gpudp_json_u64(j, "packets", l->pkts);
	/* records by their end reason */
	gpudp_json_obj(j, "flows_ended");
	for (i = 1; i < 6; i++)
		gpudp_json_u64(j, gpudp_flow_end_name((uint8_t)i), l->ended[i]);
	gpudp_json_end(j);
	gpudp_json_u64(j, "dropped", cap_report_flows_dropped(fl));
	gpudp_json_u64(j, "export_waits", fl->export_waits);
	/* the table: bounded, looked over as the packets' time goes on */
	gpudp_json_obj(j, "table");
	gpudp_json_u64(j, "capacity", fl->table.capacity);
	gpudp_json_u64(j, "in_use", fl->table.in_use);
	gpudp_json_u64(j, "looks", fl->table.scans);
	gpudp_json_u64(j, "evictions", fl->table.evictions);
	gpudp_json_dbl(j, "look_ms", (double)fl->table.look_ns / 1e6, 3);
	gpudp_json_dbl(j, "look_wait_ms", (double)fl->table.look_wait_ns / 1e6, 3);
	gpudp_json_end(j);
	gpudp_json_arr(j, "ipfix");
	for (i = 0; i < fl->n_ipfix; i++) {
		gpudp_json_obj(j, NULL);
		gpudp_json_str(j, "target", fl->ipfix_name[i]);
		gpudp_json_u64(j, "messages", fl->ipfix[i].messages);
		gpudp_json_u64(j, "records", fl->ipfix[i].records);
		gpudp_json_u64(j, "dropped", fl->ipfix[i].dropped);
		gpudp_json_u64(j, "errors", fl->ipfix[i].errors);
		gpudp_json_u64(j, "bytes", fl->ipfix[i].bytes);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
	if (fl->log_path != NULL) {
		gpudp_json_obj(j, "flow_log");
		gpudp_json_str(j, "path", fl->log_path);
		gpudp_json_u64(j, "records", fl->log.records);
		gpudp_json_u64(j, "dropped", fl->log.dropped);
		if (fl->log.error != 0)
			gpudp_json_str(j, "error", strerror(-fl->log.error));
		else
			gpudp_json_null(j, "error");
		gpudp_json_end(j);
	} else {
		gpudp_json_null(j, "flow_log");
	}
	gpudp_json_end(j);
}
