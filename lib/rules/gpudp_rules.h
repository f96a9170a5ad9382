/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_rules: Suricata-style content rules (doc/rules.md). The parser of a
 * documented subset of Suricata 8's rule syntax: actions alert and drop;
 * protocols ip, tcp, udp and icmp; addresses and ports with any, lists,
 * negation, CIDR prefixes, port ranges and variables; `->` and `<>`; the
 * options msg, sid, rev, classtype, priority, content (with |hex| and
 * escapes) and its modifiers nocase, offset, depth, distance, within,
 * startswith, endswith, fast_pattern, and isdataat and dsize. A rule with
 * a keyword outside the subset is refused with its file, line and keyword,
 * or skipped when asked. gpudp_rule_format() writes a rule back in a
 * canonical form that parses to the same rule.
 *
 * Pure C11, no DPDK or CUDA dependency. A rule set is used by one thread
 * at a time.
 */
#ifndef GPUDP_RULES_H
#define GPUDP_RULES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most bytes of one content. */
#define GPUDP_RULE_CONTENT_MAX 255u
/** Most contents and isdataat checks of one rule. */
#define GPUDP_RULE_CHECKS_MAX 32u
/** Most entries of one address or port list, variables expanded. */
#define GPUDP_RULE_LIST_MAX 256u
/** Most bytes of a rule, its continuation lines joined. */
#define GPUDP_RULE_TEXT_MAX 65536u

/** What a rule does to a packet it matches. */
enum gpudp_rule_action {
	GPUDP_RULE_ALERT = 1, /**< alert: count it, and report it */
	GPUDP_RULE_DROP,      /**< drop: the same, and drop it where the app drops */
};

/** The packets a rule looks at. */
enum gpudp_rule_proto {
	GPUDP_RULE_IP = 1,    /**< every IPv4 and IPv6 packet */
	GPUDP_RULE_TCP,
	GPUDP_RULE_UDP,
	GPUDP_RULE_ICMP,      /**< ICMP and ICMPv6 */
};

/** One entry of an address list: a network, or not it. */
struct gpudp_rule_net {
	uint8_t neg;          /**< 1: addresses outside it */
	uint8_t af;           /**< 4 or 6 */
	uint8_t prefix;       /**< prefix length: 0..32 or 0..128 */
	uint8_t addr[16];     /**< network order, host bits zero; IPv4 in the first 4 */
};

/** One entry of a port list: a range, or not it. */
struct gpudp_rule_port {
	uint16_t lo, hi;      /**< inclusive */
	uint8_t neg;          /**< 1: ports outside it */
};

/** gpudp_rule_check.kind */
enum gpudp_rule_check_kind {
	GPUDP_RULE_CONTENT = 1, /**< content:"..." */
	GPUDP_RULE_ISDATAAT,    /**< isdataat:[!]N[,relative] */
};

/** gpudp_rule_check.flags */
#define GPUDP_RULE_F_NOCASE      (1u << 0)
#define GPUDP_RULE_F_OFFSET      (1u << 1)  /**< offset given */
#define GPUDP_RULE_F_DEPTH       (1u << 2)  /**< depth given */
#define GPUDP_RULE_F_DISTANCE    (1u << 3)  /**< distance given */
#define GPUDP_RULE_F_WITHIN      (1u << 4)  /**< within given */
#define GPUDP_RULE_F_STARTSWITH  (1u << 5)
#define GPUDP_RULE_F_ENDSWITH    (1u << 6)
#define GPUDP_RULE_F_FAST        (1u << 7)  /**< fast_pattern */
#define GPUDP_RULE_F_RELATIVE    (1u << 8)  /**< isdataat: after the last match */
#define GPUDP_RULE_F_NEG         (1u << 9)  /**< isdataat: there is no data there */

/**
 * A content or an isdataat of a rule, in the rule's order (relative
 * modifiers refer to the check before them).
 */
struct gpudp_rule_check {
	uint32_t bytes;       /**< CONTENT: its bytes at gpudp_rules.bytes + bytes */
	uint16_t len;         /**< CONTENT: 1..GPUDP_RULE_CONTENT_MAX */
	uint8_t kind;         /**< enum gpudp_rule_check_kind */
	uint8_t pad;
	uint32_t flags;       /**< GPUDP_RULE_F_* */
	int32_t offset;       /**< F_OFFSET: 0..65535 */
	int32_t depth;        /**< F_DEPTH: len..65535 */
	int32_t distance;     /**< F_DISTANCE: -65535..65535 */
	int32_t within;       /**< F_WITHIN: len..65535 */
	uint32_t at;          /**< ISDATAAT: the byte position */
};

/** gpudp_rule.dsize_op */
enum gpudp_rule_dsize {
	GPUDP_RULE_DSIZE_NONE = 0,
	GPUDP_RULE_DSIZE_EQ,     /**< dsize:N */
	GPUDP_RULE_DSIZE_NE,     /**< dsize:!N */
	GPUDP_RULE_DSIZE_LT,     /**< dsize:<N */
	GPUDP_RULE_DSIZE_GT,     /**< dsize:>N */
	GPUDP_RULE_DSIZE_RANGE,  /**< dsize:N<>M: strictly between */
};

/**
 * One rule. The lists are runs of gpudp_rules' arrays: entries
 * [src, src + n_src) of gpudp_rules.net, and so on; an empty list is
 * `any`. Strings are offsets into gpudp_rules.bytes of NUL-terminated
 * text, UINT32_MAX when not given.
 */
struct gpudp_rule {
	uint32_t sid;         /**< > 0 */
	uint32_t rev;         /**< 1 when not given */
	uint32_t priority;    /**< 1..255, 0 when not given */
	uint8_t action;       /**< enum gpudp_rule_action */
	uint8_t proto;        /**< enum gpudp_rule_proto */
	uint8_t bidir;        /**< 1: `<>` (either way), 0: `->` */
	uint8_t dsize_op;     /**< enum gpudp_rule_dsize */
	uint16_t dsize_a, dsize_b; /**< dsize's numbers (b: RANGE's upper) */
	uint32_t src, n_src, dst, n_dst;        /**< into gpudp_rules.net */
	uint32_t sport, n_sport, dport, n_dport; /**< into gpudp_rules.port */
	uint32_t check, n_check;                /**< into gpudp_rules.check */
	int32_t fast;         /**< the fast pattern: index of a CONTENT among the
			       *   rule's checks, the one marked fast_pattern or
			       *   else the longest (the first of equals); -1 without
			       *   a content */
	uint32_t msg;         /**< msg's text */
	uint32_t classtype;   /**< classtype's name */
	uint32_t line;        /**< line of the rule's start in its file */
};

/** A rule set: the rules of one or more files, and what they point into. */
struct gpudp_rules {
	struct gpudp_rule *rule;
	uint32_t n_rule;
	struct gpudp_rule_net *net;
	uint32_t n_net;
	struct gpudp_rule_port *port;
	uint32_t n_port;
	struct gpudp_rule_check *check;
	uint32_t n_check;
	uint8_t *bytes;       /**< contents' bytes and strings */
	uint32_t n_bytes;
	uint32_t skipped;     /**< rules skipped for a keyword outside the subset */
	/* capacities (internal) */
	uint32_t cap_rule, cap_net, cap_port, cap_check, cap_bytes;
	/* variables (gpudp_rules_vars()) (internal) */
	char **var_name, **var_value;
	uint32_t n_var;
};

/** Parameters of gpudp_rules_parse(). */
struct gpudp_rules_conf {
	/** 1: a rule with a keyword outside the subset is skipped (counted in
	 *  gpudp_rules.skipped, @p warn called once per keyword), not refused */
	int skip_unsupported;
	/** with skip_unsupported: called the first time each keyword skips a
	 *  rule, with "FILE:LINE: ... KEYWORD ..."; may be NULL */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/** An empty rule set. */
void gpudp_rules_init(struct gpudp_rules *rs);

/** Free what @p rs holds; it is empty again. */
void gpudp_rules_free(struct gpudp_rules *rs);

/**
 * Variables for addresses and ports ($HOME_NET, $HTTP_PORTS), from @p text
 * (@p len bytes, the --rule-vars file @p name): one `NAME: VALUE` per line,
 * VALUE optionally in double quotes, `#` comments; lines ending in `:`
 * (section names, as in the vars part of suricata.yaml) are ignored. A
 * later definition of a name replaces an earlier one.
 * @return 0, or -EINVAL with "NAME:LINE: why" in @p err, -ENOMEM
 */
int gpudp_rules_vars(struct gpudp_rules *rs, const char *text, size_t len, const char *name,
		     char *err, size_t errlen);

/**
 * Parse the rules of @p text (@p len bytes, file @p name) into @p rs: one
 * rule per line, a line ending in `\` continued on the next, `#` comments,
 * blank lines.
 * @return the number of rules added (>= 0); -EINVAL with "NAME:LINE: why"
 *   in @p err (a keyword outside the subset is named: "unsupported keyword
 *   'pcre'"), -ENOMEM. On an error the rules of @p text added before it
 *   stay in @p rs.
 */
int gpudp_rules_parse(struct gpudp_rules *rs, const char *text, size_t len, const char *name,
		      const struct gpudp_rules_conf *conf, char *err, size_t errlen);

/**
 * Read the variables file @p vars (NULL: none; gpudp_rules_vars()) and
 * parse the rule files @p files (gpudp_rules_parse(), with @p conf) into
 * @p rs.
 * @return 0; -errno of a file that cannot be read, with "cannot read
 *   'FILE': why" in @p err; the parser's errors, with its message
 */
int gpudp_rules_load(struct gpudp_rules *rs, const char *const *files, uint32_t n_files,
		     const char *vars, const struct gpudp_rules_conf *conf, char *err,
		     size_t errlen);

/**
 * Write rule @p r of @p rs as rule text (no newline) into @p buf: every
 * list and content in one canonical spelling (variables expanded, contents
 * in |hex| but for letters and digits), which gpudp_rules_parse() reads
 * back to an equal rule.
 * @return the length of the text (as snprintf(): @p buf holds it when it
 *   is below @p len)
 */
int gpudp_rule_format(const struct gpudp_rules *rs, const struct gpudp_rule *r, char *buf,
		      size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_RULES_H */
