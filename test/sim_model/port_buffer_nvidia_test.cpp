// SPDX-License-Identifier: Apache-2.0
// Buffers and cable length on NVIDIA's own mlx5 tree (the OFED flavour): Mellanox/nic-kernel
// en_dcbnl.c mlx5e_dcbnl_ieee_setpfc and en/port_buffer.c mlx5e_port_manual_buffer_config.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>

#include "sim/model/port.hpp"
#include "test/sim_model/test_ports.hpp"

namespace roce_sim {
namespace {

// A ConnectX-6 Dx port at 100 Gb/s with NVIDIA's driver, like the OFED node's ens1f0np0.
PortSpec nvidia_port(bool cable_length = true, bool buffer_ownership = true) {
  PortSpec spec = test::cx7_port("ens1f0np0");
  spec.flavour = DriverFlavour::NicKernel;
  spec.traits = traits_of(spec.flavour);
  spec.speed_mbps = 100000;
  spec.caps.cable_length = cable_length;
  spec.caps.buffer_ownership = buffer_ownership;
  return spec;
}

// mlx5e_calculate_buf_sz_and_thresholds at 100 Gb/s, MTU 1500 (oper MTU 1522), 7 m:
// cable 7*100*1262/1000 = 883; B = (883 + 2*394*64 + 1522)*152/100 + 1522 = 81834;
// xon = 81834 - 1522 + 100000/8 = 92812; xoff = xon + 2*1522 = 95856; size = B + xoff = 177690,
// written in cells rounded up: 1389 cells.
constexpr uint32_t kXoff7m = 749 * 128;
constexpr uint32_t kLossless7m = 1389 * 128;
// At 10 m: cable 1262; B = 82410; xon = 93388; xoff = 96432; size = 178842: 1398 cells.
constexpr uint32_t kLossless10m = 1398 * 128;

// PFC on priority 3 with firmware-owned buffers, then a host layout with the link up.
void take_buffers(Port& port, uint32_t lossless_size) {
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08, 7)), 0);
  port.advance(std::chrono::seconds(3));
  ASSERT_TRUE(port.carrier());
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  ASSERT_EQ(buffer.prio2buffer[3], 1);
  buffer.buffer_size[1] = lossless_size;
  ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);
  ASSERT_TRUE(port.buffers_manual());  // the firmware now reports them SW-owned
}

TEST(NvidiaBuffers, AHostLayoutKeepsItsSizeWithTheDriversThresholds) {
  Port port(nvidia_port());
  take_buffers(port, 200064);
  dcbnl_buffer now{};
  ASSERT_EQ(port.dcbnl_getbuffer(now), 0);
  EXPECT_EQ(now.buffer_size[1], 200064u);
  EXPECT_EQ(port.buffer_xoff()[1], kXoff7m);  // absolute, not size - xoff as in mainline
}

// No 40 Gb/s fallback in this tree: with host-owned buffers a PFC mask change toggles the link,
// the recompute cannot read the link speed, and setpfc fails with the new mask already set and
// the buffer of the newly lossless priority still lossy.
TEST(NvidiaBuffers, APfcChangeOnHostOwnedBuffersFailsWhileTheLinkTrains) {
  Port port(nvidia_port());
  take_buffers(port, 200064);
  ASSERT_EQ(port.buffer_lossy()[0], true);  // priority 4 is on lossy buffer 0
  EXPECT_EQ(port.ieee_setpfc(test::pfc_mask(0x18, 7)), -EINVAL);
  EXPECT_EQ(port.pfc_enabled(), 0x18);
  EXPECT_FALSE(port.carrier());
  EXPECT_TRUE(port.buffer_lossy()[0]);  // no headroom for priority 4
}

TEST(NvidiaBuffers, ASetbufferWhileTheLinkTrainsFails) {
  Port port(nvidia_port());
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08, 7)), 0);
  ASSERT_FALSE(port.carrier());
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  buffer.buffer_size[1] = 200064;
  EXPECT_EQ(port.dcbnl_setbuffer(buffer), -EINVAL);
  EXPECT_FALSE(port.buffers_manual());
}

// update_xoffs_threshold gives every lossless buffer the driver's own size: what the host set
// is gone after a cable length change (and after any PFC change that flips a buffer).
TEST(NvidiaBuffers, ACableChangeResizesEveryLosslessBufferToTheDriversSize) {
  Port port(nvidia_port());
  take_buffers(port, 200064);
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08, 10)), 0);
  dcbnl_buffer now{};
  ASSERT_EQ(port.dcbnl_getbuffer(now), 0);
  EXPECT_EQ(now.buffer_size[1], kLossless10m);
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08, 7)), 0);
  ASSERT_EQ(port.dcbnl_getbuffer(now), 0);
  EXPECT_EQ(now.buffer_size[1], kLossless7m);
}

// update_xoff_threshold returns early for a lossy buffer, before it takes the requested size.
TEST(NvidiaBuffers, ALossyBufferKeepsItsSize) {
  Port port(nvidia_port());
  take_buffers(port, 200064);
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  const uint32_t before = buffer.buffer_size[0];
  buffer.buffer_size[0] = before - 128 * 100;
  ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);
  dcbnl_buffer now{};
  ASSERT_EQ(port.dcbnl_getbuffer(now), 0);
  EXPECT_EQ(now.buffer_size[0], before);
}

// Without the PCAM buffer_ownership feature the driver cannot tell who owns the buffers and
// never recomputes them from setpfc: the newly lossless priority gets no headroom.
TEST(NvidiaBuffers, WithoutTheOwnershipFeatureAPfcChangeLeavesHostBuffersAlone) {
  Port port(nvidia_port(true, false));
  take_buffers(port, 200064);
  EXPECT_EQ(port.ieee_setpfc(test::pfc_mask(0x18, 7)), 0);
  port.advance(std::chrono::seconds(3));
  EXPECT_TRUE(port.buffer_lossy()[0]);
  dcbnl_buffer now{};
  ASSERT_EQ(port.dcbnl_getbuffer(now), 0);
  EXPECT_EQ(now.buffer_size[1], 200064u);
}

TEST(NvidiaBuffers, CableLengthZeroOnlyWithTheFirmwareFeature) {
  Port with(nvidia_port(true));
  EXPECT_EQ(with.ieee_setpfc(test::pfc_mask(0x08, 0)), 0);
  ieee_pfc read{};
  ASSERT_EQ(with.ieee_getpfc(read), 0);
  EXPECT_EQ(read.delay, 0);
  Port without(nvidia_port(false));
  EXPECT_EQ(without.ieee_setpfc(test::pfc_mask(0x08, 0)), -EINVAL);
  EXPECT_EQ(without.pfc_enabled(), 0x08);  // the mask went in before the cable length failed
}

// With the PCAM cable_length feature the length goes to the firmware, which sizes its own
// lossless buffer with it; without it the driver keeps it to itself.
TEST(NvidiaBuffers, FirmwareLayoutFollowsTheCableLengthOnlyWithTheFeature) {
  for (const bool feature : {true, false}) {
    Port near(nvidia_port(feature));
    Port far(nvidia_port(feature));
    ASSERT_EQ(near.ieee_setpfc(test::pfc_mask(0x08, 1)), 0);
    ASSERT_EQ(far.ieee_setpfc(test::pfc_mask(0x08, 300)), 0);
    EXPECT_FALSE(far.buffers_manual());
    EXPECT_EQ(near.buffer_xoff()[1] != far.buffer_xoff()[1], feature) << "cable_length " << feature;
  }
}

// en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate with the QCAM u16 feature: 100 Mbit/s steps up to
// 6553.5 Gbit/s, so 30.5 Gbit/s holds where mainline reads back 30; -EINVAL above 65535 Gbit/s.
TEST(NvidiaMaxrate, HundredMegabitStepsAndARefusalAboveTheU16) {
  Port port(nvidia_port());
  ieee_maxrate in{};
  in.tc_maxrate[3] = 30500000;  // kbit/s
  ASSERT_EQ(port.ieee_setmaxrate(in), 0);
  ieee_maxrate out{};
  ASSERT_EQ(port.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[3], 30500000u);
  in.tc_maxrate[3] = uint64_t{65536} * 1000000;
  EXPECT_EQ(port.ieee_setmaxrate(in), -EINVAL);
  ASSERT_EQ(port.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[3], 30500000u);  // unchanged
}

}  // namespace
}  // namespace roce_sim
