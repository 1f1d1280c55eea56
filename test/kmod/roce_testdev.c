// SPDX-License-Identifier: GPL-2.0
/*
 * roce_testdev: Ethernet ports that behave towards the kernel as the DCB side of mlx5 does
 * (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c, en/port_buffer.c, en_stats.c,
 * en_ethtool.c, port.c and drivers/infiniband/hw/mlx5/cong.c), so that the kernel's
 * own net/dcb/dcbnl.c, net/ethtool/ioctl.c, rtnetlink and debugfs run for real in roced's VM test,
 * as netdevsim does for other drivers. No traffic: the counters are written from user space.
 *
 * Each port is a platform device named mlx5_core.<n> bound to a platform driver named
 * mlx5_core, so /sys/class/net/<if>/device/driver reads as mlx5's. Per port:
 *   debugfs mlx5/mlx5_core.<n>/cc_params/<knob>   the DCQCN knobs, mode 0600, as cong.c has them
 *   debugfs roce_testdev/<if>/counters            "name value" per line; write "name value" to
 *                                                 set a counter, "name +delta" to add to it
 *   debugfs roce_testdev/<if>/state               the registers roced cannot read (thresholds)
 *   debugfs roce_testdev/<if>/storm               "rx <prio>" or "tx <prio>": a PFC storm, whose
 *                                                 pause counters move with time from now on
 *                                                 (the duration covers all of it); "off" ends it
 *   debugfs roce_testdev/<if>/optic               "rx <lane 1-4> <0.1 uW>": a lane's receive
 *                                                 power in its QSFP28 module (SFF-8636 pages
 *                                                 00h and 03h, read by get_module_eeprom_by_page);
 *                                                 "form osfp" or "form qsfp28": the module's
 *                                                 memory map (an OSFP: CMIS pages 00h-02h, 11h)
 *   debugfs roce_testdev/<if>/fec                 "<corrected> <uncorrectable>": the RS-FEC
 *                                                 codeword counts get_fec_stats reports (its
 *                                                 corrected bits are rx_corrected_bits_phy)
 *   debugfs roce_testdev/<if>/firmware            "fatal" or "error": the port's devlink
 *                                                 (platform/mlx5_core.<n>) health reporter
 *                                                 fw_fatal or fw reports, as mlx5's health.c
 *   debugfs roce_testdev/<if>/fail                "<op> <errno>": the next call of that op
 *                                                 (setets, setpfc, setapp, delapp, setbuffer,
 *                                                 setmaxrate, set_tunable, set_pauseparam)
 *                                                 fails before it acts
 * The driver behaves as the mainline tree of the kernel it is built for does, as Debian ships it
 * (the parameters below override single traits, as a roce-sim node file's driver.traits do).
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <generated/utsrelease.h>
#include <net/dcbnl.h>
#include <net/devlink.h>

#define DRV_NAME "mlx5_core"

static unsigned int num_ports = 2;
module_param(num_ports, uint, 0444);
MODULE_PARM_DESC(num_ports, "ports to create (1-8)");
static unsigned int speed_mbps = 100000;
module_param(speed_mbps, uint, 0444);
MODULE_PARM_DESC(speed_mbps, "link speed of every port");
static unsigned int link_training_ms = 300;
module_param(link_training_ms, uint, 0644);
MODULE_PARM_DESC(link_training_ms, "carrier down after a driver link toggle (PFC mask change)");

/* en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate: a rate cap above 255 Gbit/s wraps in the u8 before
 * "net/mlx5e: Fix maxrate wraparound" (6.1.159, 6.12.63) and is refused with -EINVAL since. */
static bool maxrate_checked =
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 63) ||
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 159) &&
	 LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0));
module_param(maxrate_checked, bool, 0444);
MODULE_PARM_DESC(maxrate_checked, "refuse rate caps above 255 Gbit/s instead of wrapping them");
/* mlx5e_dcbnl_ieee_setpfc from "net/mlx5e: Query FW for buffer ownership" (6.12.44): host-set
 * buffers are sized again only while port.c mlx5_query_port_buffer_ownership answers SW-owned,
 * instead of while priv->dcbx.manual_buffer is set. */
static bool buffer_ownership_query = LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 44);
module_param(buffer_ownership_query, bool, 0444);
MODULE_PARM_DESC(buffer_ownership_query, "ask the firmware who owns the buffers after setpfc");
/* The firmware's PCAM buffer_ownership feature: without it the query answers unknown, which is
 * never SW-owned. roced cannot read it from the host; off as on firmware that lacks it. */
static bool pcam_buffer_ownership;
module_param(pcam_buffer_ownership, bool, 0444);
MODULE_PARM_DESC(pcam_buffer_ownership, "the firmware reports host-written buffers as host-owned");

#define MAX_TC 7                 /* mlx5_max_tc() on ConnectX-7 */
#define MAX_BW_ALLOC 100         /* MLX5E_MAX_BW_ALLOC */
#define VENDOR_TC_GROUP 7        /* MLX5E_VENDOR_TC_GROUP_NUM */
#define LOWEST_PRIO_GROUP 0      /* MLX5E_LOWEST_PRIO_GROUP */
#define MAX_CABLE_LENGTH 1000    /* MLX5E_MAX_CABLE_LENGTH */
#define DEFAULT_CABLE_LEN 7      /* MLX5E_DEFAULT_CABLE_LEN */
#define CELL_BYTES 128           /* 1 << MLX5E_BUFFER_CELL_SHIFT */
#define PORT_BUFFER_BYTES 2097152 /* pbmc port_buffer_size: a ConnectX-7 value */
#define MINIMUM_MAX_MTU 9216     /* MINIMUM_MAX_MTU */
#define AUTO_BUFFER_BYTES 262144 /* the firmware's own layout: not in the kernel source */
#define MAX_MTU 9978
#define MAX_CHANNELS 64
#define STALL_DEFAULT_MS 8000

enum { BW_NO_LIMIT = 0, BW_100MBPS = 3, BW_GBPS = 4 }; /* MLX5_*_UNIT */
enum {                                                 /* MLX5E_PORT_BUFFER_* */
	CHANGE_CABLE_LEN = 1 << 0,
	CHANGE_PFC = 1 << 1,
	CHANGE_PRIO2BUFFER = 1 << 2,
	CHANGE_SIZE = 1 << 3,
};

/* The sw .. pcie groups of mlx5e_nic_stats_grps, a representative subset of each, in order. */
static const char *const fixed_names[] = {
	"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "rx_csum_unnecessary", "rx_csum_none",
	"rx_csum_complete", "tx_csum_partial", "tx_queue_stopped", "tx_queue_dropped",
	"rx_wqe_err", "rx_buff_alloc_err", "rx_out_of_buffer", "rx_if_down_packets",
	"rx_vport_unicast_packets", "rx_vport_unicast_bytes", "tx_vport_unicast_packets",
	"tx_vport_unicast_bytes", "tx_packets_phy", "rx_packets_phy", "rx_crc_errors_phy",
	"tx_bytes_phy", "rx_bytes_phy", "rx_symbol_err_phy", "tx_mac_control_phy",
	"rx_mac_control_phy", "rx_unsupported_op_phy", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy",
	"rx_discards_phy", "tx_discards_phy", "tx_errors_phy", "rx_64_bytes_phy",
	"rx_1519_to_2047_bytes_phy",
	"link_down_events_phy", "rx_pcs_symbol_err_phy", "rx_corrected_bits_phy",
	"rx_buffer_passed_thres_phy", "rx_pci_signal_integrity", "tx_pci_signal_integrity",
	"outbound_pci_buffer_overflow", "outbound_pci_stalled_rd", "outbound_pci_stalled_wr",
};
#define N_FIXED ARRAY_SIZE(fixed_names)
enum { FIXED_SYMBOL_ERRORS = 23, FIXED_LINK_DOWN_EVENTS = 34, FIXED_CORRECTED_BITS = 36 };

static const char *const prio_traffic[] = { "rx_prio%d_bytes", "rx_prio%d_packets",
					    "rx_prio%d_discards", "tx_prio%d_bytes",
					    "tx_prio%d_packets" };
/* mlx5e_grp_per_prio_pfc_fill_strings: only for PFC priorities (pfc_combined). */
static const char *const prio_pause[] = { "rx_prio%d_pause", "rx_prio%d_pause_duration",
					  "tx_prio%d_pause", "tx_prio%d_pause_duration",
					  "rx_prio%d_pause_transition" };
/* The same five with "global" for the priority, while 802.3x global pause is on. */
static const char *const global_pause_names[] = { "rx_global_pause", "rx_global_pause_duration",
						  "tx_global_pause", "tx_global_pause_duration",
						  "rx_global_pause_transition" };
static const char *const storm_names[] = { "tx_pause_storm_warning_events",
					   "tx_pause_storm_error_events" };
static const char *const pme_names[] = { "module_unplug", "module_bus_stuck",
					 "module_high_temp", "module_bad_shorted" };
static const char *const ch_names[] = { "ch%u_events", "ch%u_poll", "ch%u_arm",
					"ch%u_aff_change", "ch%u_force_irq", "ch%u_eq_rearm" };
static const char *const rq_names[] = { "rx%u_packets", "rx%u_bytes", "rx%u_csum_complete",
					"rx%u_csum_none", "rx%u_ecn_mark", "rx%u_wqe_err" };
static const char *const sq_names[] = { "tx%u_packets", "tx%u_bytes", "tx%u_csum_partial",
					"tx%u_stopped", "tx%u_dropped", "tx%u_wake" };
/* per_port_buff_congest */
static const char *const congest_names[] = { "rx_prio%d_buf_discard", "rx_prio%d_cong_discard",
					     "rx_prio%d_marked" };

/* cong.c mlx5_ib_dbg_cc_name, with the field widths MLX5_SET truncates a written value to. */
static const struct {
	const char *name;
	u32 bits;
	u32 initial;
} cc_params[] = {
	{ "rp_clamp_tgt_rate", 1, 0 },
	{ "rp_clamp_tgt_rate_ati", 1, 1 },
	{ "rp_time_reset", 32, 300 },
	{ "rp_byte_reset", 32, 32767 },
	{ "rp_threshold", 32, 1 },
	{ "rp_ai_rate", 32, 5 },
	{ "rp_max_rate", 32, 0 },
	{ "rp_hai_rate", 32, 50 },
	{ "rp_min_dec_fac", 32, 50 },
	{ "rp_min_rate", 32, 1 },
	{ "rp_rate_to_set_on_first_cnp", 32, 0 },
	{ "rp_dce_tcp_g", 32, 1019 },
	{ "rp_dce_tcp_rtt", 32, 1 },
	{ "rp_rate_reduce_monitor_period", 32, 4 },
	{ "rp_initial_alpha_value", 32, 1023 },
	{ "rp_gd", 32, 11 },
	{ "np_min_time_between_cnps", 32, 4 },
	{ "np_cnp_dscp", 6, 48 },
	{ "np_cnp_prio_mode", 1, 1 },
	{ "np_cnp_prio", 3, 6 },
	{ "rtt_resp_dscp_valid", 1, 0 },
	{ "rtt_resp_dscp", 6, 0 },
};
#define N_CC ARRAY_SIZE(cc_params)

struct tdev;

struct tdev_cc_file {
	struct tdev *dev;
	unsigned int index;
};

struct tdev {
	struct net_device *netdev;
	struct platform_device *pdev;
	struct delayed_work link_work;
	struct dentry *dev_dir, *dbg_dir; /* mlx5/<device>/ and roce_testdev/<if>/ */
	/* DCB: driver copies and the firmware registers behind them */
	u8 tc_tsa[IEEE_8021QAZ_MAX_TCS]; /* priv->dcbx.tc_tsa */
	u8 fw_prio_tc[8], fw_tc_group[8], fw_tc_bw[8];
	u8 pfc_en;
	bool pause_rx, pause_tx; /* PFCC pprx, pptx: 802.3x global pause */
	u32 cable_len;
	u8 max_bw_value[8], max_bw_unit[8];
	u8 dcbx_cap;
	bool trust_dscp;
	u8 dscp2prio[64];
	int dscp_app_cnt;
	struct dcbnl_buffer buffer;
	u32 buf_xoff[8], buf_xon[8];
	bool buf_lossy[8];
	u32 cached_xoff;    /* priv->dcbx.xoff */
	bool manual_buffer; /* priv->dcbx.manual_buffer */
	/* ethtool */
	u32 channels, stats_nch;
	u16 optic_rx[4];	 /* each lane's receive power, 0.1 uW */
	struct devlink *devlink;
	struct devlink_health_reporter *fw_reporter, *fw_fatal_reporter;
	u8 optic_latched[19];	 /* SFF-8636 bytes 3-21: flags latched since the last read */
	bool optic_cmis;	 /* an OSFP module (CMIS 5.0) in the cage instead */
	u64 fec_corrected_blocks, fec_uncorrectable_blocks; /* PPCNT rs_fec_*_blocks */
	u16 stall_ms, stall_minor_ms;
	/* counters */
	u64 fixed[N_FIXED];
	u64 traffic[8][ARRAY_SIZE(prio_traffic)];
	u64 pause[8][ARRAY_SIZE(prio_pause)];
	/* priv->stats.pport's per-priority pause counts, which getpfc reports: read by
	 * get_ethtool_stats only (mlx5e_stats_update) */
	u64 cached_requests[8], cached_indications[8];
	u64 storm[ARRAY_SIZE(storm_names)];
	u64 congest[8][ARRAY_SIZE(congest_names)];
	/* DCQCN */
	u32 cc[N_CC];
	/* a storm: pause counters of storm_prio in storm_dir (0 none, 1 rx, 2 tx) move with time */
	int storm_dir, storm_prio;
	u64 storm_ns; /* up to when the counters have been advanced */
	/* the test's fault: the next call of fail_op returns -fail_errno */
	char fail_op[16];
	int fail_errno;
	struct tdev_cc_file cc_files[N_CC];
};

static struct dentry *mlx5_debugfs_root, *tdev_debugfs_root;
static struct platform_device *tdev_pdevs[8];

/* ---- the test's injected fault ---- */

static int tdev_injected(struct tdev *t, const char *op)
{
	int err;

	if (!t->fail_errno || strcmp(t->fail_op, op))
		return 0;
	err = -t->fail_errno;
	t->fail_errno = 0;
	return err;
}

/* ---- link ---- */

/* mlx5_toggle_port_link: admin down and up; the carrier returns when the PHY has trained. */
static void tdev_toggle_link(struct tdev *t)
{
	if (!netif_running(t->netdev))
		return;
	netif_carrier_off(t->netdev);
	t->fixed[FIXED_LINK_DOWN_EVENTS]++;
	mod_delayed_work(system_wq, &t->link_work, msecs_to_jiffies(link_training_ms));
}

static void tdev_link_work(struct work_struct *work)
{
	struct tdev *t = container_of(to_delayed_work(work), struct tdev, link_work);

	if (netif_running(t->netdev))
		netif_carrier_on(t->netdev);
}

/* ---- ETS (mlx5e_dcbnl_ieee_setets_core, mlx5e_build_tc_group, mlx5e_build_tc_tx_bw) ---- */

static void tdev_setets_core(struct tdev *t, const struct ieee_ets *ets)
{
	bool any_ets = false, ets_zero_bw = false;
	int num_zero = 0, last_zero = -1, bw_for_zero, i;
	u8 strict_group = LOWEST_PRIO_GROUP;
	u8 group[8], bw[8];

	for (i = 0; i <= MAX_TC; i++) {
		if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
			any_ets = true;
			if (!ets->tc_tx_bw[i])
				ets_zero_bw = true;
		}
	}
	if (any_ets)
		strict_group++;
	if (ets_zero_bw)
		strict_group++;
	for (i = 0; i <= MAX_TC; i++) {
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_VENDOR:
			group[i] = VENDOR_TC_GROUP;
			break;
		case IEEE_8021QAZ_TSA_STRICT:
			group[i] = strict_group++;
			break;
		case IEEE_8021QAZ_TSA_ETS:
			group[i] = (ets->tc_tx_bw[i] && ets_zero_bw) ? LOWEST_PRIO_GROUP + 1 :
								       LOWEST_PRIO_GROUP;
			break;
		default:
			group[i] = t->fw_tc_group[i];
			break;
		}
	}
	for (i = 0; i <= MAX_TC; i++) {
		if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS && !ets->tc_tx_bw[i]) {
			num_zero++;
			last_zero = i;
		}
	}
	bw_for_zero = num_zero ? MAX_BW_ALLOC / num_zero : 0;
	for (i = 0; i <= MAX_TC; i++) {
		if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS)
			bw[i] = ets->tc_tx_bw[i] ? ets->tc_tx_bw[i] : bw_for_zero;
		else
			bw[i] = MAX_BW_ALLOC;
	}
	if (last_zero != -1)
		bw[last_zero] += MAX_BW_ALLOC % num_zero;
	memcpy(t->fw_prio_tc, ets->prio_tc, 8);
	memcpy(t->fw_tc_group, group, 8);
	memcpy(t->fw_tc_bw, bw, 8);
	memcpy(t->tc_tsa, ets->tc_tsa, sizeof(t->tc_tsa));
}

static int tdev_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct tdev *t = netdev_priv(dev);
	bool group6 = false, zero_bw_ets = false;
	int i;

	memset(ets, 0, sizeof(*ets));
	ets->ets_cap = MAX_TC + 1;
	for (i = 0; i < ets->ets_cap; i++) {
		ets->prio_tc[i] = t->fw_prio_tc[i];
		ets->tc_tx_bw[i] = t->fw_tc_bw[i];
		if (t->fw_tc_bw[i] < MAX_BW_ALLOC && t->fw_tc_group[i] == LOWEST_PRIO_GROUP + 1)
			zero_bw_ets = true;
		if (t->fw_tc_group[i] == VENDOR_TC_GROUP - 1)
			group6 = true;
	}
	if (zero_bw_ets)
		for (i = 0; i < ets->ets_cap; i++)
			if (t->fw_tc_group[i] == LOWEST_PRIO_GROUP)
				ets->tc_tx_bw[i] = 0;
	memcpy(ets->tc_tsa, t->tc_tsa, sizeof(ets->tc_tsa));
	for (i = 0; i < ets->ets_cap; i++) {
		if (ets->tc_tx_bw[i] < MAX_BW_ALLOC)
			ets->tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		else if (t->fw_tc_group[i] == VENDOR_TC_GROUP && !group6)
			ets->tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
	}
	return 0;
}

/* mlx5e_dbcnl_validate_ets with zero_sum_allowed false */
static int tdev_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	bool have_ets = false;
	int bw_sum = 0, i, err;

	err = tdev_injected(netdev_priv(dev), "setets");
	if (err)
		return err;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (ets->prio_tc[i] >= 8)
			return -EINVAL;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
			have_ets = true;
			bw_sum += ets->tc_tx_bw[i];
		}
	}
	if (have_ets && bw_sum != 100)
		return -EINVAL;
	tdev_setets_core(netdev_priv(dev), ets);
	return 0;
}

/* ---- maxrate (mainline: a u8 count of 100 Mbit/s below 26 Gbit/s, of Gbit/s above) ---- */

#define KBPS_100MB 100000ULL
#define KBPS_1GB 1000000ULL

static int tdev_ieee_getmaxrate(struct net_device *dev, struct ieee_maxrate *maxrate)
{
	struct tdev *t = netdev_priv(dev);
	int i;

	memset(maxrate->tc_maxrate, 0, sizeof(maxrate->tc_maxrate));
	for (i = 0; i <= MAX_TC; i++) {
		if (t->max_bw_unit[i] == BW_100MBPS)
			maxrate->tc_maxrate[i] = t->max_bw_value[i] * KBPS_100MB;
		else if (t->max_bw_unit[i] == BW_GBPS)
			maxrate->tc_maxrate[i] = t->max_bw_value[i] * KBPS_1GB;
	}
	return 0;
}

static int tdev_ieee_setmaxrate(struct net_device *dev, struct ieee_maxrate *maxrate)
{
	struct tdev *t = netdev_priv(dev);
	/* Before the fix: 100 Mbit/s units below roundup(25.5 Gbit/s) = 26 (25.6 wraps to 0); since:
	 * up to and with 25.5 Gbit/s. */
	const u64 upper = maxrate_checked ? 255 * KBPS_100MB + 1 : roundup(255 * KBPS_100MB, KBPS_1GB);
	u8 value[8] = {}, unit[8] = {};
	int i, err;

	err = tdev_injected(t, "setmaxrate");
	if (err)
		return err;
	for (i = 0; i <= MAX_TC; i++) {
		u64 rate = maxrate->tc_maxrate[i];

		if (!rate) {
			unit[i] = BW_NO_LIMIT;
		} else if (rate < upper) {
			value[i] = div_u64(rate, KBPS_100MB) ?: 1;
			unit[i] = BW_100MBPS;
		} else if (!maxrate_checked || rate <= 255 * KBPS_1GB) {
			value[i] = (u8)div_u64(rate, KBPS_1GB); /* wraps past 255 */
			unit[i] = BW_GBPS;
		} else {
			return -EINVAL; /* before anything is written */
		}
	}
	memcpy(t->max_bw_value, value, sizeof(value));
	memcpy(t->max_bw_unit, unit, sizeof(unit));
	return 0;
}

/* ---- buffers (en/port_buffer.c, mainline 6.1) ---- */

static u32 round_down_cells(u64 bytes)
{
	return (u32)(bytes / CELL_BYTES * CELL_BYTES);
}

/* calculate_xoff: at the link speed of the moment; 40 Gb/s when the link is down. */
static u32 tdev_xoff_at(struct tdev *t, u64 speed)
{
	speed = max_t(u64, speed, 40000);
	return (u32)((301 + 216 * (u64)t->cable_len / 100) * speed / 1000 +
		     272 * (u64)t->netdev->mtu / 100);
}

static u32 tdev_calculate_xoff(struct tdev *t)
{
	return tdev_xoff_at(t, netif_carrier_ok(t->netdev) ? speed_mbps : 40000);
}

/* What the firmware does with buffers it owns: PFC priorities on lossless buffer 1, the rest on
 * lossy buffer 0, sized for the firmware's own cable length (not in the kernel source). */
static void tdev_auto_buffer_layout(struct tdev *t)
{
	u32 max_mtu = max_t(u32, MAX_MTU, MINIMUM_MAX_MTU);
	u32 saved = t->cable_len, xoff;
	int prio;

	t->cable_len = DEFAULT_CABLE_LEN;
	xoff = tdev_xoff_at(t, speed_mbps);
	t->cable_len = saved;
	memset(&t->buffer, 0, sizeof(t->buffer));
	memset(t->buf_xoff, 0, sizeof(t->buf_xoff));
	memset(t->buf_xon, 0, sizeof(t->buf_xon));
	for (prio = 0; prio < 8; prio++) {
		t->buf_lossy[prio] = true;
		t->buffer.prio2buffer[prio] = (t->pfc_en >> prio) & 1;
	}
	t->buffer.buffer_size[0] = AUTO_BUFFER_BYTES;
	if (t->pfc_en) {
		u64 needed = (u64)xoff + max_mtu + CELL_BYTES;

		t->buffer.buffer_size[1] =
			max_t(u32, AUTO_BUFFER_BYTES, DIV_ROUND_UP_ULL(needed, CELL_BYTES) * CELL_BYTES);
		t->buf_lossy[1] = false;
		t->buf_xoff[1] = round_down_cells(t->buffer.buffer_size[1] - xoff);
		t->buf_xon[1] = round_down_cells(t->buffer.buffer_size[1] - xoff - max_mtu);
	}
	t->buffer.total_size = PORT_BUFFER_BYTES;
}

struct tdev_layout {
	u32 size[8], xoff[8], xon[8];
	bool lossy[8];
};

static int tdev_update_xoff_threshold(struct tdev_layout *l, u32 xoff, u32 max_mtu)
{
	int i;

	for (i = 0; i < 8; i++) {
		if (l->lossy[i]) {
			l->xoff[i] = l->xon[i] = 0;
			continue;
		}
		if ((u64)l->size[i] < (u64)xoff + max_mtu + CELL_BYTES)
			return -ENOMEM;
		l->xoff[i] = l->size[i] - xoff;
		l->xon[i] = l->xoff[i] - max_mtu;
	}
	return 0;
}

static int tdev_update_buffer_lossy(struct tdev_layout *l, u8 pfc_en, const u8 *map, u32 xoff,
				    u32 max_mtu, bool *update)
{
	bool changed = false;
	int i, prio;

	for (i = 0; i < 8; i++) {
		int prio_count = 0, lossy_count = 0;
		bool lossy;

		for (prio = 0; prio < 8; prio++) {
			if (map[prio] != i)
				continue;
			prio_count++;
			lossy_count += !(pfc_en & (1 << prio));
		}
		lossy = lossy_count == prio_count;
		if (lossy != l->lossy[i]) {
			l->lossy[i] = lossy;
			changed = true;
		}
	}
	if (!changed)
		return 0;
	*update = true;
	return tdev_update_xoff_threshold(l, xoff, max_mtu);
}

/* mlx5e_port_manual_buffer_config: on a copy of the registers, written only on success. */
static int tdev_manual_buffer_config(struct tdev *t, u32 change, u8 pfc_en, const u32 *sizes,
				     const u8 *prio2buffer)
{
	u32 max_mtu = max_t(u32, MAX_MTU, MINIMUM_MAX_MTU);
	u32 xoff = tdev_calculate_xoff(t);
	u64 headroom = 0, cells = 0;
	struct tdev_layout l;
	bool update = false;
	int err, i;

	for (i = 0; i < 8; i++) {
		l.size[i] = t->buffer.buffer_size[i];
		l.xoff[i] = t->buf_xoff[i];
		l.xon[i] = t->buf_xon[i];
		l.lossy[i] = t->buf_lossy[i];
		headroom += l.size[i];
	}
	if (change & CHANGE_CABLE_LEN) {
		update = true;
		err = tdev_update_xoff_threshold(&l, xoff, max_mtu);
		if (err)
			return err;
	}
	if (change & CHANGE_PFC) {
		err = tdev_update_buffer_lossy(&l, pfc_en, t->buffer.prio2buffer, xoff, max_mtu,
					       &update);
		if (err)
			return err;
	}
	if (change & CHANGE_PRIO2BUFFER) {
		err = tdev_update_buffer_lossy(&l, t->pfc_en, prio2buffer, xoff, max_mtu, &update);
		if (err)
			return err;
	}
	if (change & CHANGE_SIZE) {
		u64 total = 0;

		for (i = 0; i < 8; i++) {
			if (!l.lossy[i] && !sizes[i])
				return -EINVAL;
			l.size[i] = sizes[i];
			total += sizes[i];
		}
		if (total > headroom && total - headroom > PORT_BUFFER_BYTES - headroom)
			return -EINVAL;
		update = true;
		err = tdev_update_xoff_threshold(&l, xoff, max_mtu);
		if (err)
			return err;
	}
	if (!update && xoff != t->cached_xoff) {
		update = true;
		err = tdev_update_xoff_threshold(&l, xoff, max_mtu);
		if (err)
			return err;
	}
	t->cached_xoff = xoff;
	if (update) {
		/* port_set_buffer: cells, rounded down; 4 cells left for the shared pools */
		for (i = 0; i < 8; i++)
			cells += l.size[i] / CELL_BYTES;
		if (PORT_BUFFER_BYTES / CELL_BYTES < cells + 4)
			return -EINVAL;
		for (i = 0; i < 8; i++) {
			t->buffer.buffer_size[i] = round_down_cells(l.size[i]);
			t->buf_xoff[i] = round_down_cells(l.xoff[i]);
			t->buf_xon[i] = round_down_cells(l.xon[i]);
			t->buf_lossy[i] = l.lossy[i];
		}
	}
	if (change & CHANGE_PRIO2BUFFER)
		memcpy(t->buffer.prio2buffer, prio2buffer, 8);
	return 0;
}

static int tdev_dcbnl_getbuffer(struct net_device *dev, struct dcbnl_buffer *buffer)
{
	struct tdev *t = netdev_priv(dev);

	*buffer = t->buffer;
	return 0;
}

static int tdev_dcbnl_setbuffer(struct net_device *dev, struct dcbnl_buffer *in)
{
	struct tdev *t = netdev_priv(dev);
	u32 changed = 0;
	int err;

	err = tdev_injected(t, "setbuffer");
	if (err)
		return err;
	if (memcmp(in->prio2buffer, t->buffer.prio2buffer, sizeof(in->prio2buffer)))
		changed |= CHANGE_PRIO2BUFFER;
	if (memcmp(in->buffer_size, t->buffer.buffer_size, sizeof(in->buffer_size)))
		changed |= CHANGE_SIZE;
	if (!changed)
		return 0;
	t->manual_buffer = true; /* set before the config is tried, as mlx5 does */
	return tdev_manual_buffer_config(t, changed, t->pfc_en, in->buffer_size, in->prio2buffer);
}

/* ---- PFC (mlx5e_dcbnl_ieee_getpfc / setpfc) ---- */

/* Whether setpfc sizes the buffers again: while the host set them (priv->dcbx.manual_buffer), or
 * from 6.12.44 while the firmware reports them SW-owned, which it does only with PCAM
 * buffer_ownership and after a PBMC write. */
static bool tdev_host_recomputes_buffers(const struct tdev *t)
{
	if (!buffer_ownership_query)
		return t->manual_buffer;
	return pcam_buffer_ownership && t->manual_buffer;
}

static int tdev_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct tdev *t = netdev_priv(dev);
	int i;

	memset(pfc, 0, sizeof(*pfc));
	pfc->pfc_cap = MAX_TC + 1;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		pfc->requests[i] = t->cached_requests[i];
		pfc->indications[i] = t->cached_indications[i];
	}
	pfc->delay = t->cable_len;
	pfc->pfc_en = t->pfc_en;
	return 0;
}

static int tdev_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct tdev *t = netdev_priv(dev);
	u32 old_cable_len = t->cable_len, changed = 0;
	u8 curr_pfc_en = t->pfc_en;
	int ret;

	ret = tdev_injected(t, "setpfc");
	if (ret)
		return ret;
	if (pfc->pfc_en != curr_pfc_en) {
		/* port.c mlx5_set_port_pfc writes PFCC from a zeroed buffer: pptx and pprx go to 0,
		 * so every mask change turns 802.3x global pause off in both directions. */
		t->pfc_en = pfc->pfc_en;
		t->pause_rx = false;
		t->pause_tx = false;
		tdev_toggle_link(t);
		changed |= CHANGE_PFC;
	}
	if (pfc->delay && pfc->delay < MAX_CABLE_LENGTH && pfc->delay != t->cable_len) {
		t->cable_len = pfc->delay;
		changed |= CHANGE_CABLE_LEN;
	}
	if (tdev_host_recomputes_buffers(t))
		ret = tdev_manual_buffer_config(t, changed,
						(changed & CHANGE_PFC) ? pfc->pfc_en : curr_pfc_en,
						NULL, NULL);
	else if (!t->manual_buffer)
		tdev_auto_buffer_layout(t);
	if (ret && (changed & CHANGE_CABLE_LEN))
		t->cable_len = old_cable_len;
	return ret;
}

/* ---- APP table and trust (mlx5e_dcbnl_ieee_setapp / delapp) ---- */

static int tdev_ieee_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct tdev *t = netdev_priv(dev);
	struct dcb_app temp;
	bool is_new;
	int err;

	err = tdev_injected(t, "setapp");
	if (err)
		return err;
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= 64)
		return -EINVAL;
	temp.selector = IEEE_8021QAZ_APP_SEL_DSCP;
	temp.protocol = app->protocol;
	temp.priority = t->dscp2prio[app->protocol];
	if (!t->dscp_app_cnt)
		t->trust_dscp = true; /* mlx5e_set_trust_state(DSCP) */
	t->dscp2prio[app->protocol] = app->priority;
	is_new = dcb_ieee_delapp(dev, &temp) != 0;
	err = dcb_ieee_setapp(dev, app);
	if (err)
		return err;
	if (is_new)
		t->dscp_app_cnt++;
	return 0;
}

static int tdev_ieee_delapp(struct net_device *dev, struct dcb_app *app)
{
	struct tdev *t = netdev_priv(dev);
	int err;

	err = tdev_injected(t, "delapp");
	if (err)
		return err;
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= 64)
		return -EINVAL;
	if (!t->dscp_app_cnt)
		return -ENOENT;
	if (app->priority != t->dscp2prio[app->protocol])
		return -ENOENT;
	err = dcb_ieee_delapp(dev, app);
	if (err)
		return err;
	t->dscp2prio[app->protocol] = 0; /* back to priority 0, not to the firmware map */
	if (--t->dscp_app_cnt == 0)
		t->trust_dscp = false; /* mlx5e_set_trust_state(PCP) */
	return 0;
}

/* ---- DCBX (mlx5e_dcbnl_getdcbx / setdcbx) ---- */

static u8 tdev_getdcbx(struct net_device *dev)
{
	return ((struct tdev *)netdev_priv(dev))->dcbx_cap;
}

static u8 tdev_setdcbx(struct net_device *dev, u8 mode)
{
	struct tdev *t = netdev_priv(dev);

	if (mode & DCB_CAP_DCBX_LLD_MANAGED)
		return 1;
	if (!mode) {
		t->dcbx_cap &= ~DCB_CAP_DCBX_HOST;
		return 0;
	}
	if (!(mode & DCB_CAP_DCBX_HOST))
		return 1;
	t->dcbx_cap = mode;
	return 0;
}

static const struct dcbnl_rtnl_ops tdev_dcbnl_ops = {
	.ieee_getets = tdev_ieee_getets,
	.ieee_setets = tdev_ieee_setets,
	.ieee_getmaxrate = tdev_ieee_getmaxrate,
	.ieee_setmaxrate = tdev_ieee_setmaxrate,
	.ieee_getpfc = tdev_ieee_getpfc,
	.ieee_setpfc = tdev_ieee_setpfc,
	.ieee_setapp = tdev_ieee_setapp,
	.ieee_delapp = tdev_ieee_delapp,
	.getdcbx = tdev_getdcbx,
	.setdcbx = tdev_setdcbx,
	.dcbnl_getbuffer = tdev_dcbnl_getbuffer,
	.dcbnl_setbuffer = tdev_dcbnl_setbuffer,
};

/* ---- statistics: one walk gives the count, the names and the values, in mlx5's order ---- */

struct stat_walk {
	int index;
	u8 *names;	      /* get_strings */
	u64 *values;	      /* get_ethtool_stats */
	const char *find;     /* the counters file: the slot of this name */
	u64 *found;
	bool found_any;
};

static void stat_emit(struct stat_walk *w, const char *name, u64 *slot)
{
	if (w->names)
		strscpy(w->names + w->index * ETH_GSTRING_LEN, name, ETH_GSTRING_LEN);
	if (w->values)
		w->values[w->index] = slot ? *slot : 0;
	if (w->find && !w->found_any && !strcmp(name, w->find)) {
		w->found = slot;
		w->found_any = true;
	}
	w->index++;
}

/* A storm's pause counters up to now: paused the whole time, a pause frame per 100 us. */
static void tdev_storm_advance(struct tdev *t)
{
	u64 now = ktime_get_ns(), us;
	u64 *pause;

	if (!t->storm_dir) {
		t->storm_ns = now;
		return;
	}
	us = div_u64(now - t->storm_ns, 1000);
	t->storm_ns += us * 1000;
	pause = t->pause[t->storm_prio];
	/* prio_pause: rx pause, rx duration, tx pause, tx duration, rx transition */
	if (t->storm_dir == 1) {
		pause[1] += us;
		pause[0] += div_u64(us, 100);
	} else {
		pause[3] += us;
		pause[2] += div_u64(us, 100);
	}
}

static void tdev_walk_stats(struct tdev *t, struct stat_walk *w)
{
	char name[ETH_GSTRING_LEN];
	unsigned int ch, i;
	int p;

	tdev_storm_advance(t);

	for (i = 0; i < N_FIXED; i++)
		stat_emit(w, fixed_names[i], &t->fixed[i]);
	for (p = 0; p < 8; p++)
		for (i = 0; i < ARRAY_SIZE(prio_traffic); i++) {
			snprintf(name, sizeof(name), prio_traffic[i], p);
			stat_emit(w, name, &t->traffic[p][i]);
		}
	for (p = 0; p < 8; p++) {
		if (!(t->pfc_en & (1 << p)))
			continue;
		for (i = 0; i < ARRAY_SIZE(prio_pause); i++) {
			snprintf(name, sizeof(name), prio_pause[i], p);
			stat_emit(w, name, &t->pause[p][i]);
		}
	}
	/* mlx5e_grp_per_prio_pfc_fill_strings/_fill_stats: while rx or tx global pause is on
	 * (mlx5e_query_global_pause_combined), five more names read from priority 0's counters. */
	if (t->pause_rx || t->pause_tx)
		for (i = 0; i < ARRAY_SIZE(global_pause_names); i++)
			stat_emit(w, global_pause_names[i], &t->pause[0][i]);
	for (i = 0; i < ARRAY_SIZE(storm_names); i++)
		stat_emit(w, storm_names[i], &t->storm[i]);
	for (i = 0; i < ARRAY_SIZE(pme_names); i++)
		stat_emit(w, pme_names[i], NULL);
	/* channels: priv->stats_nch, which grows with ethtool -L and never shrinks */
	for (ch = 0; ch < t->stats_nch; ch++)
		for (i = 0; i < ARRAY_SIZE(ch_names); i++) {
			snprintf(name, sizeof(name), ch_names[i], ch);
			stat_emit(w, name, NULL);
		}
	for (ch = 0; ch < t->stats_nch; ch++)
		for (i = 0; i < ARRAY_SIZE(rq_names); i++) {
			snprintf(name, sizeof(name), rq_names[i], ch);
			stat_emit(w, name, ch == 0 && i < 2 ? &t->fixed[i] : NULL);
		}
	for (ch = 0; ch < t->stats_nch; ch++)
		for (i = 0; i < ARRAY_SIZE(sq_names); i++) {
			snprintf(name, sizeof(name), sq_names[i], ch);
			stat_emit(w, name, ch == 0 && i < 2 ? &t->fixed[2 + i] : NULL);
		}
	for (p = 0; p < 8; p++)
		for (i = 0; i < ARRAY_SIZE(congest_names); i++) {
			snprintf(name, sizeof(name), congest_names[i], p);
			stat_emit(w, name, &t->congest[p][i]);
		}
}

static int tdev_get_sset_count(struct net_device *dev, int sset)
{
	struct stat_walk w = {};

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	tdev_walk_stats(netdev_priv(dev), &w);
	return w.index;
}

static void tdev_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct stat_walk w = { .names = data };

	if (sset == ETH_SS_STATS)
		tdev_walk_stats(netdev_priv(dev), &w);
}

static void tdev_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats, u64 *data)
{
	struct stat_walk w = { .values = data };
	struct tdev *t = netdev_priv(dev);
	int i;

	tdev_walk_stats(t, &w);
	for (i = 0; i < 8; i++) {
		t->cached_requests[i] = t->pause[i][2];    /* tx_prio%d_pause */
		t->cached_indications[i] = t->pause[i][0]; /* rx_prio%d_pause */
	}
}

/* ---- the rest of ethtool ---- */

static void tdev_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct tdev *t = netdev_priv(dev);

	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->version, UTS_RELEASE, sizeof(info->version));
	strscpy(info->fw_version, "28.39.1002 (MT_0000000838)", sizeof(info->fw_version));
	strscpy(info->bus_info, dev_name(&t->pdev->dev), sizeof(info->bus_info));
}

static int tdev_get_link_ksettings(struct net_device *dev, struct ethtool_link_ksettings *ks)
{
	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.speed = netif_carrier_ok(dev) ? speed_mbps : SPEED_UNKNOWN;
	ks->base.duplex = netif_carrier_ok(dev) ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	ks->base.port = PORT_DA;
	ks->base.autoneg = AUTONEG_ENABLE;
	return 0;
}

static void tdev_get_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct tdev *t = netdev_priv(dev);

	ch->max_combined = MAX_CHANNELS;
	ch->combined_count = t->channels;
}

/* mlx5e_ethtool_set_channels: opening channels allocates their statistics for good
 * (mlx5e_channel_stats_alloc raises priv->stats_nch). */
static int tdev_set_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct tdev *t = netdev_priv(dev);

	if (!ch->combined_count || ch->rx_count || ch->tx_count)
		return -EINVAL;
	t->channels = ch->combined_count;
	t->stats_nch = max(t->stats_nch, t->channels);
	return 0;
}

static int tdev_get_tunable(struct net_device *dev, const struct ethtool_tunable *tuna, void *data)
{
	struct tdev *t = netdev_priv(dev);

	if (tuna->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EINVAL;
	*(u16 *)data = t->stall_ms;
	return 0;
}

/* mlx5e_set_pfc_prevention_tout: AUTO is 100 ms, 0 off, else 80..8000 ms; the minor watermark
 * is max(80, 85 % of the critical one). */
static int tdev_set_tunable(struct net_device *dev, const struct ethtool_tunable *tuna,
			    const void *data)
{
	struct tdev *t = netdev_priv(dev);
	u16 ms = *(const u16 *)data;
	int err;

	err = tdev_injected(t, "set_tunable");
	if (err)
		return err;
	if (tuna->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EINVAL;
	if (ms == PFC_STORM_PREVENTION_AUTO)
		ms = 100;
	if (ms && (ms > 8000 || ms < 80))
		return -EINVAL;
	t->stall_ms = ms;
	t->stall_minor_ms = max(80, ms * 85 / 100);
	return 0;
}

/* mlx5e_ethtool_get_pauseparam: PFCC pprx/pptx (mlx5_query_port_pause); autoneg stays 0. */
static void tdev_get_pauseparam(struct net_device *dev, struct ethtool_pauseparam *pause)
{
	struct tdev *t = netdev_priv(dev);

	pause->rx_pause = t->pause_rx;
	pause->tx_pause = t->pause_tx;
}

/* mlx5e_ethtool_set_pauseparam: these ports are vport group managers (a PF), so only pause
 * autonegotiation is refused; mlx5_set_port_pause writes pptx/pprx and leaves PFC alone. */
static int tdev_set_pauseparam(struct net_device *dev, struct ethtool_pauseparam *pause)
{
	struct tdev *t = netdev_priv(dev);
	int err;

	err = tdev_injected(t, "set_pauseparam");
	if (err)
		return err;
	if (pause->autoneg)
		return -EINVAL;
	t->pause_rx = !!pause->rx_pause;
	t->pause_tx = !!pause->tx_pause;
	return 0;
}

/* ---- the QSFP28 module (SFF-8636 Rev 2.10a), as roce-sim's sim/model/transceiver.cpp ---- */

#define OPTIC_TEMPERATURE (38 * 256 + 128) /* 38.5 C in 1/256 C */
#define OPTIC_VCC 32900			   /* 3.29 V in 100 uV */
#define OPTIC_BIAS 3400			   /* 6.8 mA in 2 uA */
#define OPTIC_TX 8900			   /* 0.89 mW in 0.1 uW */
/* Receive power thresholds in 0.1 uW: high alarm, low alarm, high warning, low warning */
static const u16 optic_rx_limits[4] = { 21878, 468, 17378, 933 };

static void optic_put(u8 *page, unsigned int at, u16 value)
{
	page[at] = value >> 8;
	page[at + 1] = value & 0xff;
}

/* The flags (bytes 6-14, a nibble per quantity) the readings raise now: only receive power moves. */
static void optic_conditions(const struct tdev *t, u8 *flags)
{
	unsigned int lane;

	memset(flags, 0, 19);
	for (lane = 0; lane < 4; lane++) {
		u16 v = t->optic_rx[lane];
		u8 bits = (v > optic_rx_limits[0] ? 8 : 0) | (v < optic_rx_limits[1] ? 4 : 0) |
			  (v > optic_rx_limits[2] ? 2 : 0) | (v < optic_rx_limits[3] ? 1 : 0);

		flags[9 - 3 + lane / 2] |= lane % 2 ? bits : bits << 4;
	}
}

static void optic_latch(struct tdev *t)
{
	u8 now[19];
	unsigned int i;

	optic_conditions(t, now);
	for (i = 0; i < sizeof(now); i++)
		t->optic_latched[i] |= now[i];
}

static void optic_page(struct tdev *t, u8 page, u8 *image)
{
	static const char vendor[] = "NVIDIA          ", part[] = "MMA1B00-C100D   ";
	static const u16 limits[][4] = {
		{ 80 * 256, (u16)(-10 * 256), 75 * 256, (u16)(-5 * 256) }, /* 128: temperature */
		{ 36300, 29700, 34650, 31350 },				    /* 144: supply */
	};
	u8 now[19];
	unsigned int i, lane;

	memset(image, 0, 256);
	if (page == 3) {
		for (i = 0; i < 4; i++) {
			optic_put(image, 128 + 2 * i, limits[0][i]);
			optic_put(image, 144 + 2 * i, limits[1][i]);
			optic_put(image, 176 + 2 * i, optic_rx_limits[i]);
			optic_put(image, 184 + 2 * i, (u16[]){ 6000, 1000, 5250, 1500 }[i]);
			optic_put(image, 192 + 2 * i, (u16[]){ 31623, 2291, 19953, 3631 }[i]);
		}
	}
	/* The lower page is the same whatever page is selected. */
	image[0] = 0x11; /* QSFP28 */
	image[1] = 0x07;
	optic_conditions(t, now);
	for (i = 0; i < sizeof(now); i++)
		image[3 + i] = t->optic_latched[i] | now[i];
	optic_put(image, 22, OPTIC_TEMPERATURE);
	optic_put(image, 26, OPTIC_VCC);
	for (lane = 0; lane < 4; lane++) {
		optic_put(image, 34 + 2 * lane, t->optic_rx[lane]);
		optic_put(image, 42 + 2 * lane, OPTIC_BIAS);
		optic_put(image, 50 + 2 * lane, OPTIC_TX);
	}
	if (page != 0)
		return;
	image[128] = 0x11;
	image[130] = 0x0c; /* MPO */
	image[131] = 0x80; /* extended compliance: byte 192 */
	memcpy(&image[148], vendor, 16);
	memcpy(&image[168], part, 16);
	image[192] = 0x02; /* 100GBASE-SR4 */
	snprintf((char *)&image[196], 17, "MT2231FT%-8s", netdev_name(t->netdev));
	image[220] = 0x0c; /* average RX power; TX power measured */
}

/* An OSFP 400G SR4 module (CMIS 5.0, ethtool's cmis.h offsets), as roce-sim's: module monitors in
 * lower page 00h, what it monitors in 01h, thresholds in 02h, each lane's flags and monitors in
 * 11h. Its flags here are the live conditions (no latching): only receive power moves. */
static void optic_cmis_page(const struct tdev *t, u8 page, u8 *image)
{
	static const char vendor[] = "NVIDIA          ", part[] = "MMA4Z00-NS400   ";
	unsigned int i, lane;

	memset(image, 0, 256);
	image[0] = 0x19;     /* OSFP */
	image[1] = 0x50;     /* CMIS 5.0 */
	image[3] = 0x03 << 1; /* ModuleReady */
	optic_put(image, 14, OPTIC_TEMPERATURE);
	optic_put(image, 16, OPTIC_VCC);
	image[85] = 0x01; /* multimode fibre */
	image[88] = 0x44; /* application 1: 4 host lanes, 4 media lanes */
	image[90] = 0xff; /* end of the application list */
	switch (page) {
	case 0x00:
		image[128] = 0x19;
		memcpy(&image[129], vendor, 16);
		memcpy(&image[148], part, 16);
		snprintf((char *)&image[166], 17, "MT2231FT%-8s", netdev_name(t->netdev));
		image[203] = 0x0c; /* MPO */
		break;
	case 0x01:
		image[151] = 0x10; /* average RX power */
		image[160] = 0x07; /* bias, TX power and RX power monitors; bias multiplier 1 */
		break;
	case 0x02:
		for (i = 0; i < 4; i++) {
			optic_put(image, 128 + 2 * i,
				  (u16[]){ 80 * 256, (u16)(-10 * 256), 75 * 256, (u16)(-5 * 256) }[i]);
			optic_put(image, 136 + 2 * i, (u16[]){ 36300, 29700, 34650, 31350 }[i]);
			optic_put(image, 176 + 2 * i, (u16[]){ 31623, 2291, 19953, 3631 }[i]);
			optic_put(image, 184 + 2 * i, (u16[]){ 6000, 1000, 5250, 1500 }[i]);
			optic_put(image, 192 + 2 * i, optic_rx_limits[i]);
		}
		break;
	case 0x11:
		for (lane = 0; lane < 4; lane++) {
			u16 v = t->optic_rx[lane];

			for (i = 0; i < 4; i++) {
				bool beyond = i % 2 ? v < optic_rx_limits[i] : v > optic_rx_limits[i];

				if (beyond)
					image[149 + i] |= 1 << lane; /* RX power HA, LA, HW, LW */
			}
			optic_put(image, 154 + 2 * lane, OPTIC_TX);
			optic_put(image, 170 + 2 * lane, OPTIC_BIAS);
			optic_put(image, 186 + 2 * lane, v);
		}
		break;
	}
}

/* mlx5e_get_module_eeprom_by_page: the kernel's eeprom_parse_request has checked the range; the
 * driver checks the I2C address (port.c mlx5_query_module_eeprom_by_page) and reads what the
 * module answers. Reading flags bytes 3-21 clears them (SFF-8636 clear-on-read); a condition that
 * lasts sets its flag again. */
static int tdev_get_module_eeprom_by_page(struct net_device *dev,
					  const struct ethtool_module_eeprom *page_data,
					  struct netlink_ext_ack *extack)
{
	struct tdev *t = netdev_priv(dev);
	u8 image[256];
	u32 at;

	if (!page_data->length)
		return -EINVAL;
	if (page_data->i2c_address != 0x50 && page_data->i2c_address != 0x51) {
		NL_SET_ERR_MSG_MOD(extack, "I2C address not recognized");
		return -EINVAL;
	}
	if (page_data->offset + page_data->length > sizeof(image))
		return -EINVAL;
	if (t->optic_cmis) {
		if (page_data->i2c_address != 0x50 || page_data->bank)
			memset(image, 0, sizeof(image));
		else
			optic_cmis_page(t, page_data->page, image);
		memcpy(page_data->data, image + page_data->offset, page_data->length);
		return page_data->length;
	}
	if (page_data->i2c_address != 0x50 || page_data->bank ||
	    (page_data->page != 0 && page_data->page != 3)) {
		memset(page_data->data, 0, page_data->length);
		return page_data->length;
	}
	optic_page(t, page_data->page, image);
	memcpy(page_data->data, image + page_data->offset, page_data->length);
	for (at = page_data->offset; at < page_data->offset + page_data->length; at++) {
		if (at >= 3 && at <= 21)
			t->optic_latched[at - 3] = 0;
	}
	optic_latch(t);
	return page_data->length;
}

static ssize_t optic_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct tdev *t = file->private_data;
	char text[32] = {};
	unsigned int lane, power;

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	if (!strncmp(text, "form ", 5)) {
		if (strncmp(text + 5, "osfp", 4) && strncmp(text + 5, "qsfp28", 6))
			return -EINVAL;
		rtnl_lock();
		t->optic_cmis = !strncmp(text + 5, "osfp", 4);
		rtnl_unlock();
		return count;
	}
	if (sscanf(text, "rx %u %u", &lane, &power) != 2 || lane < 1 || lane > 4 || power > 65535)
		return -EINVAL;
	rtnl_lock();
	t->optic_rx[lane - 1] = power;
	if (!t->optic_cmis) /* the CMIS form's flags are live: nothing to latch */
		optic_latch(t);
	rtnl_unlock();
	return count;
}

static const struct file_operations optic_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = optic_write,
};

/* ---- FEC: en_ethtool.c mlx5e_get_fecparam, en_stats.c mlx5e_stats_fec_get ---- */

/* RS-FEC, as PPLM reports it at 100G and above; no active mode while the link is down, which
 * mlx5e_get_fecparam answers with -EOPNOTSUPP. */
static int tdev_get_fecparam(struct net_device *dev, struct ethtool_fecparam *fec)
{
	if (!netif_carrier_ok(dev))
		return -EOPNOTSUPP;
	fec->active_fec = ETHTOOL_FEC_RS;
	fec->fec = ETHTOOL_FEC_RS;
	return 0;
}

/* en_stats.c mlx5e_stats_eth_phy_get: the 802.3 group's a_symbol_error_during_carrier, which
 * ethtool -S names rx_symbol_err_phy */
static void tdev_get_eth_phy_stats(struct net_device *dev, struct ethtool_eth_phy_stats *phy_stats)
{
	struct tdev *t = netdev_priv(dev);

	phy_stats->SymbolErrorDuringCarrier = t->fixed[FIXED_SYMBOL_ERRORS];
}

/* fec_set_rs_stats and fec_set_corrected_bits_total: totals only in the RS modes */
static void tdev_get_fec_stats(struct net_device *dev, struct ethtool_fec_stats *fec_stats)
{
	struct tdev *t = netdev_priv(dev);

	fec_stats->corrected_blocks.total = t->fec_corrected_blocks;
	fec_stats->uncorrectable_blocks.total = t->fec_uncorrectable_blocks;
	fec_stats->corrected_bits.total = t->fixed[FIXED_CORRECTED_BITS];
}

static ssize_t fec_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct tdev *t = file->private_data;
	char text[48] = {};
	unsigned long long corrected, uncorrectable;

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	if (sscanf(text, "%llu %llu", &corrected, &uncorrectable) != 2)
		return -EINVAL;
	rtnl_lock();
	t->fec_corrected_blocks = corrected;
	t->fec_uncorrectable_blocks = uncorrectable;
	rtnl_unlock();
	return count;
}

static const struct file_operations fec_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = fec_write,
};

/* ---- devlink health: health.c mlx5_fw_reporters_create ---- */

/* mlx5_fw_fatal_reporter_recover: the device is reset (here: nothing to reset) */
static int tdev_fw_fatal_recover(struct devlink_health_reporter *reporter, void *priv_ctx,
				 struct netlink_ext_ack *extack)
{
	return 0;
}

/* fw has no recover op: after its first report it stays in error, as mlx5's does */
static const struct devlink_health_reporter_ops tdev_fw_reporter_ops = {
	.name = "fw",
};

static const struct devlink_health_reporter_ops tdev_fw_fatal_reporter_ops = {
	.name = "fw_fatal",
	.recover = tdev_fw_fatal_recover,
};

#define TDEV_FW_GRACEFUL_PERIOD 1200000 /* MLX5_REPORTER_FW_GRACEFUL_PERIOD, mainline 6.1 */

static const struct devlink_ops tdev_devlink_ops = {};

static ssize_t firmware_write(struct file *file, const char __user *buf, size_t count,
			      loff_t *ppos)
{
	struct tdev *t = file->private_data;
	char text[16] = {};

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	if (!strncmp(text, "fatal", 5) && !IS_ERR_OR_NULL(t->fw_fatal_reporter))
		devlink_health_report(t->fw_fatal_reporter, "FW fatal error reported", NULL);
	else if (!strncmp(text, "error", 5) && !IS_ERR_OR_NULL(t->fw_reporter))
		devlink_health_report(t->fw_reporter, "FW error reported", NULL);
	else
		return -EINVAL;
	return count;
}

static const struct file_operations firmware_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = firmware_write,
};

static void tdev_devlink_add(struct tdev *t)
{
	t->devlink = devlink_alloc(&tdev_devlink_ops, 0, &t->pdev->dev);
	if (!t->devlink)
		return;
	devlink_register(t->devlink);
	t->fw_reporter = devlink_health_reporter_create(t->devlink, &tdev_fw_reporter_ops, 0, t);
	t->fw_fatal_reporter = devlink_health_reporter_create(
		t->devlink, &tdev_fw_fatal_reporter_ops, TDEV_FW_GRACEFUL_PERIOD, t);
}

static void tdev_devlink_remove(struct tdev *t)
{
	if (!t->devlink)
		return;
	if (!IS_ERR_OR_NULL(t->fw_fatal_reporter))
		devlink_health_reporter_destroy(t->fw_fatal_reporter);
	if (!IS_ERR_OR_NULL(t->fw_reporter))
		devlink_health_reporter_destroy(t->fw_reporter);
	devlink_unregister(t->devlink);
	devlink_free(t->devlink);
}

static const struct ethtool_ops tdev_ethtool_ops = {
	.get_drvinfo = tdev_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = tdev_get_link_ksettings,
	.get_sset_count = tdev_get_sset_count,
	.get_strings = tdev_get_strings,
	.get_ethtool_stats = tdev_get_ethtool_stats,
	.get_channels = tdev_get_channels,
	.set_channels = tdev_set_channels,
	.get_tunable = tdev_get_tunable,
	.set_tunable = tdev_set_tunable,
	.get_pauseparam = tdev_get_pauseparam,
	.set_pauseparam = tdev_set_pauseparam,
	.get_module_eeprom_by_page = tdev_get_module_eeprom_by_page,
	.get_fecparam = tdev_get_fecparam,
	.get_fec_stats = tdev_get_fec_stats,
	.get_eth_phy_stats = tdev_get_eth_phy_stats,
};

/* ---- netdev ---- */

static int tdev_open(struct net_device *dev)
{
	struct tdev *t = netdev_priv(dev);

	mod_delayed_work(system_wq, &t->link_work, msecs_to_jiffies(link_training_ms));
	return 0;
}

static int tdev_stop(struct net_device *dev)
{
	struct tdev *t = netdev_priv(dev);

	cancel_delayed_work_sync(&t->link_work);
	netif_carrier_off(dev);
	return 0;
}

static netdev_tx_t tdev_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops tdev_netdev_ops = {
	.ndo_open = tdev_open,
	.ndo_stop = tdev_stop,
	.ndo_start_xmit = tdev_start_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* ---- debugfs: cc_params as cong.c has them, and the test's own files ---- */

static unsigned int cc_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_CC; i++)
		if (!strcmp(cc_params[i].name, name))
			return i;
	return 0;
}

static ssize_t cc_read(struct file *f, char __user *buf, size_t count, loff_t *pos)
{
	struct tdev_cc_file *cc = f->private_data;
	char text[16];
	int len;

	len = snprintf(text, sizeof(text), "%u\n", cc->dev->cc[cc->index]);
	return simple_read_from_buffer(buf, count, pos, text, len);
}

static ssize_t cc_write(struct file *f, const char __user *buf, size_t count, loff_t *pos)
{
	struct tdev_cc_file *cc = f->private_data;
	u32 bits = cc_params[cc->index].bits;
	char text[16] = {};
	u32 value;

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	if (kstrtou32(strim(text), 0, &value))
		return -EINVAL;
	if (bits < 32)
		value &= (1u << bits) - 1; /* MLX5_SET truncates to the field */
	cc->dev->cc[cc->index] = value;
	/* mlx5_ib_set_cc_param_mask_val: a CNP priority sets prio mode 0, a response DSCP valid */
	if (!strcmp(cc_params[cc->index].name, "np_cnp_prio"))
		cc->dev->cc[cc_index("np_cnp_prio_mode")] = 0;
	if (!strcmp(cc_params[cc->index].name, "rtt_resp_dscp"))
		cc->dev->cc[cc_index("rtt_resp_dscp_valid")] = 1;
	return count;
}

static const struct file_operations cc_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = cc_read,
	.write = cc_write,
};

static int counters_show(struct seq_file *s, void *unused)
{
	struct tdev *t = s->private;
	struct stat_walk w = {};
	u8 *names;
	u64 *values;
	int n, i;

	rtnl_lock();
	tdev_walk_stats(t, &w);
	n = w.index;
	names = kcalloc(n, ETH_GSTRING_LEN, GFP_KERNEL);
	values = kcalloc(n, sizeof(u64), GFP_KERNEL);
	if (names && values) {
		struct stat_walk fill = { .names = names, .values = values };

		tdev_walk_stats(t, &fill);
	}
	rtnl_unlock();
	if (!names || !values) {
		kfree(names);
		kfree(values);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		seq_printf(s, "%s %llu\n", names + i * ETH_GSTRING_LEN, values[i]);
	kfree(names);
	kfree(values);
	return 0;
}

static int counters_open(struct inode *inode, struct file *f)
{
	return single_open(f, counters_show, inode->i_private);
}

/* "name value" sets a counter, "name +delta" adds to it; a name not listed now is -ENOENT. */
static ssize_t counters_write(struct file *f, const char __user *buf, size_t count, loff_t *pos)
{
	struct tdev *t = ((struct seq_file *)f->private_data)->private;
	char text[96] = {}, *value_text, *name;
	struct stat_walk w = {};
	bool add;
	u64 value;

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	name = strim(text);
	value_text = strchr(name, ' ');
	if (!value_text)
		return -EINVAL;
	*value_text++ = 0;
	value_text = skip_spaces(value_text);
	add = *value_text == '+';
	if (kstrtou64(value_text + add, 0, &value))
		return -EINVAL;
	w.find = name;
	rtnl_lock();
	tdev_walk_stats(t, &w);
	if (w.found) {
		if (add)
			*w.found += value;
		else
			*w.found = value;
	}
	rtnl_unlock();
	if (!w.found_any)
		return -ENOENT;
	if (!w.found)
		return -EPERM; /* listed, but always 0 */
	return count;
}

static const struct file_operations counters_fops = {
	.owner = THIS_MODULE,
	.open = counters_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = counters_write,
};

static ssize_t fail_write(struct file *f, const char __user *buf, size_t count, loff_t *pos)
{
	struct tdev *t = f->private_data;
	char text[32] = {}, op[16];
	int errno_value;

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	if (sscanf(text, "%15s %d", op, &errno_value) != 2 || errno_value <= 0 ||
	    errno_value >= MAX_ERRNO)
		return -EINVAL;
	rtnl_lock();
	strscpy(t->fail_op, op, sizeof(t->fail_op));
	t->fail_errno = errno_value;
	rtnl_unlock();
	return count;
}

static ssize_t storm_write(struct file *f, const char __user *buf, size_t count, loff_t *pos)
{
	struct tdev *t = f->private_data;
	char text[32] = {}, dir[8];
	int prio = 0;

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, count))
		return -EFAULT;
	if (sscanf(text, "%7s %d", dir, &prio) < 1 || prio < 0 || prio > 7)
		return -EINVAL;
	rtnl_lock();
	tdev_storm_advance(t);
	if (!strcmp(dir, "rx"))
		t->storm_dir = 1;
	else if (!strcmp(dir, "tx"))
		t->storm_dir = 2;
	else
		t->storm_dir = 0;
	t->storm_prio = prio;
	t->storm_ns = ktime_get_ns();
	rtnl_unlock();
	return count;
}

static const struct file_operations storm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = storm_write,
};

static const struct file_operations fail_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = fail_write,
};

static int state_show(struct seq_file *s, void *unused)
{
	struct tdev *t = s->private;
	int i;

	rtnl_lock();
	seq_printf(s, "pfc_en 0x%02x\ncable_len %u\ncarrier %d\nmanual_buffer %d\n", t->pfc_en,
		   t->cable_len, netif_carrier_ok(t->netdev), t->manual_buffer);
	seq_printf(s, "global_pause rx %d tx %d\n", t->pause_rx, t->pause_tx);
	seq_printf(s, "trust %s\ndscp_app_cnt %d\ndcbx_cap 0x%02x\n",
		   t->trust_dscp ? "dscp" : "pcp", t->dscp_app_cnt, t->dcbx_cap);
	seq_puts(s, "dscp2prio");
	for (i = 0; i < 64; i++)
		seq_printf(s, " %u", t->dscp2prio[i]);
	seq_puts(s, "\n");
	for (i = 0; i < 8; i++)
		seq_printf(s, "buffer%d size %u xoff %u xon %u lossy %d\n", i,
			   t->buffer.buffer_size[i], t->buf_xoff[i], t->buf_xon[i], t->buf_lossy[i]);
	seq_printf(s, "stall_ms %u\nstall_minor_ms %u\nchannels %u\nstats_nch %u\n", t->stall_ms,
		   t->stall_minor_ms, t->channels, t->stats_nch);
	rtnl_unlock();
	return 0;
}

static int state_open(struct inode *inode, struct file *f)
{
	return single_open(f, state_show, inode->i_private);
}

static const struct file_operations state_fops = {
	.owner = THIS_MODULE,
	.open = state_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static void tdev_debugfs_add(struct tdev *t)
{
	struct dentry *cc_dir;
	unsigned int i;

	t->dev_dir = debugfs_create_dir(dev_name(&t->pdev->dev), mlx5_debugfs_root);
	cc_dir = debugfs_create_dir("cc_params", t->dev_dir);
	for (i = 0; i < N_CC; i++) {
		t->cc_files[i].dev = t;
		t->cc_files[i].index = i;
		debugfs_create_file(cc_params[i].name, 0600, cc_dir, &t->cc_files[i], &cc_fops);
	}
	t->dbg_dir = debugfs_create_dir(netdev_name(t->netdev), tdev_debugfs_root);
	debugfs_create_file("counters", 0600, t->dbg_dir, t, &counters_fops);
	debugfs_create_file("state", 0400, t->dbg_dir, t, &state_fops);
	debugfs_create_file("fail", 0200, t->dbg_dir, t, &fail_fops);
	debugfs_create_file("storm", 0200, t->dbg_dir, t, &storm_fops);
	debugfs_create_file("optic", 0200, t->dbg_dir, t, &optic_fops);
	debugfs_create_file("firmware", 0200, t->dbg_dir, t, &firmware_fops);
	debugfs_create_file("fec", 0200, t->dbg_dir, t, &fec_fops);
}

/* ---- the ports: mlx5e_dcbnl_initialize and mlx5e_ets_init at load ---- */

static void tdev_firmware_defaults(struct tdev *t)
{
	struct ieee_ets ets = {};
	int i;

	for (i = 0; i < 64; i++)
		t->dscp2prio[i] = i >> 3;
	t->dcbx_cap = DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE;
	/* A port nobody configured: PFC off, 802.3x global pause on both ways (the firmware's
	 * PFCC, not in the kernel source) */
	t->pause_rx = true;
	t->pause_tx = true;
	t->cable_len = DEFAULT_CABLE_LEN;
	ets.ets_cap = MAX_TC + 1;
	for (i = 0; i < ets.ets_cap; i++) {
		ets.tc_tx_bw[i] = MAX_BW_ALLOC;
		ets.tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
		ets.prio_tc[i] = i;
	}
	ets.prio_tc[0] = 1;
	ets.prio_tc[1] = 0;
	tdev_setets_core(t, &ets);
	t->channels = t->stats_nch = 1;
	for (i = 0; i < 4; i++)
		t->optic_rx[i] = (u16[]){ 8100, 7800, 8500, 7600 }[i]; /* about -1 dBm */
	t->stall_ms = STALL_DEFAULT_MS;
	t->stall_minor_ms = STALL_DEFAULT_MS * 85 / 100;
	for (i = 0; i < N_CC; i++)
		t->cc[i] = cc_params[i].initial;
	tdev_auto_buffer_layout(t);
}

static int tdev_probe(struct platform_device *pdev)
{
	struct net_device *netdev;
	struct tdev *t;
	int err;

	netdev = alloc_etherdev(sizeof(*t));
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	snprintf(netdev->name, IFNAMSIZ, "rtd%d", pdev->id);
	netdev->netdev_ops = &tdev_netdev_ops;
	netdev->ethtool_ops = &tdev_ethtool_ops;
	netdev->dcbnl_ops = &tdev_dcbnl_ops;
	netdev->min_mtu = 68;
	netdev->max_mtu = MAX_MTU;
	eth_hw_addr_random(netdev);
	t = netdev_priv(netdev);
	t->netdev = netdev;
	t->pdev = pdev;
	INIT_DELAYED_WORK(&t->link_work, tdev_link_work);
	netif_carrier_off(netdev);
	tdev_firmware_defaults(t);
	err = register_netdev(netdev);
	if (err) {
		free_netdev(netdev);
		return err;
	}
	platform_set_drvdata(pdev, t);
	tdev_devlink_add(t);
	tdev_debugfs_add(t);
	return 0;
}

static void tdev_remove(struct platform_device *pdev)
{
	struct tdev *t = platform_get_drvdata(pdev);

	debugfs_remove_recursive(t->dbg_dir);
	debugfs_remove_recursive(t->dev_dir);
	tdev_devlink_remove(t);
	unregister_netdev(t->netdev);
	cancel_delayed_work_sync(&t->link_work);
	free_netdev(t->netdev);
}

static struct platform_driver tdev_driver = {
	.driver = { .name = DRV_NAME },
	.probe = tdev_probe,
	/*
	 * include/linux/platform_device.h, struct platform_driver: 6.1's .remove returns int and its
	 * void-returning twin is .remove_new; from 6.11 .remove returns void (.remove_new is a relic
	 * in a union with it, gone in 6.13).
	 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	.remove = tdev_remove,
#else
	.remove_new = tdev_remove,
#endif
};

static void tdev_unregister_ports(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tdev_pdevs); i++) {
		if (tdev_pdevs[i])
			platform_device_unregister(tdev_pdevs[i]);
		tdev_pdevs[i] = NULL;
	}
}

static int __init tdev_init(void)
{
	unsigned int i;
	int err;

	if (!num_ports || num_ports > ARRAY_SIZE(tdev_pdevs))
		return -EINVAL;
	mlx5_debugfs_root = debugfs_create_dir("mlx5", NULL);
	tdev_debugfs_root = debugfs_create_dir("roce_testdev", NULL);
	err = platform_driver_register(&tdev_driver);
	if (err)
		goto out_debugfs;
	for (i = 0; i < num_ports; i++) {
		struct platform_device *pdev = platform_device_register_simple(DRV_NAME, i, NULL, 0);

		if (IS_ERR(pdev)) {
			err = PTR_ERR(pdev);
			goto out_ports;
		}
		tdev_pdevs[i] = pdev;
	}
	return 0;
out_ports:
	tdev_unregister_ports();
	platform_driver_unregister(&tdev_driver);
out_debugfs:
	debugfs_remove_recursive(tdev_debugfs_root);
	debugfs_remove_recursive(mlx5_debugfs_root);
	return err;
}

static void __exit tdev_exit(void)
{
	tdev_unregister_ports();
	platform_driver_unregister(&tdev_driver);
	debugfs_remove_recursive(tdev_debugfs_root);
	debugfs_remove_recursive(mlx5_debugfs_root);
}

module_init(tdev_init);
module_exit(tdev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mlx5-like DCB, ethtool and debugfs test ports for roced's VM test");
