// group_norm.cluster_tiles's plan on a described H100 (no GPU needed): every position of every
// chunk covered by exactly one thread's vectors, chunks of whole groups on 16-byte boundaries,
// blocks within the kernel's limits, and the shapes it must decline declined with a reason.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/group_norm/cluster_tiles_plan.hpp"
#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

using kernels::ClusterTilesPlan;
using kernels::plan_cluster_tiles;
using kernels::plan_grid_registers;

ProblemShape channels_last(std::vector<int64_t> shape, int64_t groups, DType dtype,
                           Layout layout = Layout::nhwc) {
  const ProblemFormat format{dtype, dtype, layout, true};
  return make_problem_shape(Op::group_norm, std::move(shape), {}, groups, 1e-5, 1.0, true, format);
}

// What every cut of either kernel must be: chunks of whole groups on 16-byte boundaries,
// blocks within the kernel's limits, the chunk's blocks covering its positions (none of them
// empty) and each block's lanes and vectors (registers and shared memory) its own positions.
void expect_valid_cut(const ProblemShape& p, const ClusterTilesPlan& plan) {
  const int64_t group_channels = p.channels / p.groups;
  EXPECT_EQ(p.groups % plan.chunk_groups, 0);
  EXPECT_EQ(plan.chunk_channels, plan.chunk_groups * group_channels);
  EXPECT_EQ(plan.chunk_channels * dtype_bytes(p.dtype) % 16, 0);
  EXPECT_EQ(plan.column_vectors * 16, plan.chunk_channels * dtype_bytes(p.dtype));
  EXPECT_LE(plan.threads, kernels::kClusterTilesMaxThreads);
  EXPECT_EQ(plan.threads % 32, 0);
  EXPECT_GE(plan.threads, plan.row_lanes * plan.column_vectors);
  EXPECT_GE(plan.positions_per_block * plan.cluster, p.spatial);
  EXPECT_LT(plan.positions_per_block * (plan.cluster - 1), p.spatial);
  EXPECT_GE(int64_t{plan.row_lanes} * (plan.vectors_per_thread + plan.shared_vectors),
            plan.positions_per_block);
  EXPECT_LE(plan.vectors_per_thread, kernels::kClusterTilesMaxVectors);
  EXPECT_EQ(plan.blocks, p.shape[0] * (p.groups / plan.chunk_groups) * plan.cluster);
  // Vectors in shared memory come by one bulk copy a slab: contiguous in whole-row chunks only.
  if (plan.shared_vectors > 0) {
    EXPECT_EQ(plan.chunk_channels, p.channels);
  }
}

TEST(ClusterTilesPlan, CoversEveryPositionOnceWithAlignedChunksOfWholeGroups) {
  const int sms = testing::described_h100().sm_count;
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 320, 64, 64}, {2, 640, 32, 32}, {2, 1280, 16, 16}, {2, 640, 64, 64}, {2, 320, 128, 128},
      {8, 512, 64, 64}, {1, 64, 3, 5},    {3, 96, 1, 1},     {2, 1280, 8, 8}};
  int planned = 0;
  for (DType dtype : kAllDTypes)
    for (const auto& shape : shapes) {
      const ProblemShape p = channels_last(shape, 32, dtype);
      const ClusterTilesPlan plan = plan_cluster_tiles(p, sms);
      if (!plan.unsupported.empty()) continue;
      ++planned;
      SCOPED_TRACE(::testing::Message()
                   << dtype_name(dtype) << " " << shape[1] << "x" << shape[2] << "x" << shape[3]);
      expect_valid_cut(p, plan);
      EXPECT_LE(plan.cluster, kernels::kClusterTilesMaxCluster);
      EXPECT_EQ(plan.shared_vectors, 0);
      EXPECT_FALSE(plan.grid_barrier);
    }
  EXPECT_GE(planned, 20);
}

TEST(ClusterTilesPlan, SpreadsTheSmallUnetShapesOverTheDevice) {
  // 2 x 320 x 64 x 64 in float16: 10 channels a group, so chunks of 4 groups (80 bytes) or
  // more; the plan must use most of the 132 SMs, not one block per chunk.
  const ClusterTilesPlan plan =
      plan_cluster_tiles(channels_last({2, 320, 64, 64}, 32, DType::float16), 132);
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported;
  EXPECT_GE(plan.blocks, 64);
  EXPECT_GT(plan.cluster, 1);
}

TEST(ClusterTilesPlan, NarrowsChunksOnlyToTakeTheSameBlocksInSmallerClusters) {
  // 2 x 640 x 32 x 32 float16: 320-byte chunks in clusters of 16 make 128 blocks; 160-byte
  // chunks make the same 128 blocks in clusters of 8.
  const ClusterTilesPlan narrowed =
      plan_cluster_tiles(channels_last({2, 640, 32, 32}, 32, DType::float16), 132);
  ASSERT_TRUE(narrowed.unsupported.empty()) << narrowed.unsupported;
  EXPECT_EQ(narrowed.chunk_channels * 2, 160);
  EXPECT_EQ(narrowed.cluster, 8);
  EXPECT_EQ(narrowed.blocks, 128);
  // SD 1.5's 2 x 320 x 64 x 64: 160-byte chunks could fill 128 SMs in clusters of 16 (slower,
  // measured); they are taken only for the 64 blocks of the 320-byte plan, in clusters of 8.
  const ClusterTilesPlan sd15 =
      plan_cluster_tiles(channels_last({2, 320, 64, 64}, 32, DType::float16), 132);
  ASSERT_TRUE(sd15.unsupported.empty()) << sd15.unsupported;
  EXPECT_EQ(sd15.blocks, 64);
  EXPECT_EQ(sd15.cluster, 8);
  // Where the model rates the smaller cluster slower, the model's plan stands: 8 x 2560 x 24 x
  // 24 float16 in 8 groups keeps its 1280-byte chunks in clusters of 8 (17.3 us estimated)
  // rather than 640-byte chunks in clusters of 4 (17.8).
  const ClusterTilesPlan kept =
      plan_cluster_tiles(channels_last({8, 2560, 24, 24}, 8, DType::float16), 132);
  ASSERT_TRUE(kept.unsupported.empty()) << kept.unsupported;
  EXPECT_EQ(kept.chunk_channels * 2, 1280);
  EXPECT_EQ(kept.cluster, 8);
}

TEST(ClusterTilesPlan, DeclinesNchwUnalignedRowsAndChunksTooLargeForACluster) {
  EXPECT_NE(plan_cluster_tiles(channels_last({2, 320, 8, 8}, 32, DType::float16, Layout::nchw), 132)
                .unsupported.find("NCHW"),
            std::string::npos);
  // 6 float16 channels: 12-byte rows.
  EXPECT_FALSE(
      plan_cluster_tiles(channels_last({2, 6, 5, 7}, 3, DType::float16), 132).unsupported.empty());
  // One group of 64 channels over 512 x 512 positions: 32 MB, far more than 16 SMs hold.
  EXPECT_FALSE(plan_cluster_tiles(channels_last({1, 64, 512, 512}, 1, DType::float32), 132)
                   .unsupported.empty());
}

// group_norm.grid_registers: the same cut, but every block of the grid resident at once (one
// block an SM, as its launch bounds and the cooperative launch need), its vectors held in
// registers and, beyond 16 a thread, in shared memory.
TEST(GridRegistersPlan, HoldsEveryPositionOnceInOneWaveOfOneBlockAnSm) {
  const int sms = testing::described_h100().sm_count;
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 320, 64, 64}, {2, 640, 32, 32},   {2, 1280, 16, 16}, {2, 640, 64, 64}, {2, 320, 128, 128},
      {8, 320, 64, 64}, {1, 512, 128, 128}, {1, 64, 3, 5},     {3, 96, 1, 1},    {2, 1280, 8, 8}};
  int planned = 0, shared = 0;
  for (DType dtype : kAllDTypes)
    for (const auto& shape : shapes) {
      const ProblemShape p = channels_last(shape, 32 <= shape[1] ? 32 : 1, dtype);
      const ClusterTilesPlan plan = plan_grid_registers(p, sms);
      if (!plan.unsupported.empty()) continue;
      ++planned;
      SCOPED_TRACE(::testing::Message() << dtype_name(dtype) << " " << shape[0] << "x" << shape[1]
                                        << "x" << shape[2] << "x" << shape[3]);
      EXPECT_TRUE(plan.grid_barrier);
      EXPECT_LE(plan.blocks, sms);  // one wave, one block an SM
      expect_valid_cut(p, plan);
      EXPECT_LE(plan.shared_bytes + 1024, size_t{227} << 10);
      if (plan.shared_vectors > 0) {  // with the channel totals and the staged partials too
        const size_t staged = kernels::cluster_tiles_exchange_bytes(
            plan.chunk_channels, plan.chunk_groups, plan.cluster, true, plan.shared_vectors);
        EXPECT_LE(plan.shared_bytes + staged + 1024, size_t{227} << 10);
      }
      // A float2 partial per block and group of its chunk, and with shared vectors the padding
      // that the last chunk's 16-byte copies may read.
      EXPECT_EQ(plan.workspace_bytes,
                8 * static_cast<size_t>(plan.blocks * plan.chunk_groups) +
                    (plan.shared_vectors > 0 ? kernels::kGridRegistersWorkspacePadding : 0));
      shared += plan.shared_vectors > 0;
    }
  EXPECT_GE(planned, 25);
  EXPECT_GE(shared, 2);
}

TEST(GridRegistersPlan, TakesTheMeasuredCutsOfTheUnetShapes) {
  // On the H100 (kernels/NOTES.md): SD 1.5's 2 x 320 x 64 x 64 float16 in 8 vectors a thread
  // on 132 SMs; SDXL's 2 x 640 x 64 x 64 bfloat16 in chunks of 160 channels (not 320);
  // 2 x 320 x 128 x 128 float16 (21 MB) in chunks of whole rows, 12 vectors in registers and 16
  // in shared memory (not half rows with 8 there: 21.1 against 21.7 us).
  const ClusterTilesPlan sd15 =
      plan_grid_registers(channels_last({2, 320, 64, 64}, 32, DType::float16), 132);
  ASSERT_TRUE(sd15.unsupported.empty()) << sd15.unsupported;
  EXPECT_EQ(sd15.vectors_per_thread, 8);
  EXPECT_EQ(sd15.shared_vectors, 0);
  EXPECT_EQ(sd15.blocks, 132);
  const ClusterTilesPlan sdxl =
      plan_grid_registers(channels_last({2, 640, 64, 64}, 32, DType::bfloat16), 132);
  ASSERT_TRUE(sdxl.unsupported.empty()) << sdxl.unsupported;
  EXPECT_EQ(sdxl.chunk_channels, 160);
  EXPECT_EQ(sdxl.vectors_per_thread, 12);
  const ClusterTilesPlan sdxl_fp16 =
      plan_grid_registers(channels_last({2, 320, 128, 128}, 32, DType::float16), 132);
  ASSERT_TRUE(sdxl_fp16.unsupported.empty()) << sdxl_fp16.unsupported;
  EXPECT_EQ(sdxl_fp16.vectors_per_thread, 12);
  EXPECT_EQ(sdxl_fp16.shared_vectors, 16);
  EXPECT_EQ(sdxl_fp16.chunk_channels, 320);
  EXPECT_EQ(sdxl_fp16.blocks, 132);
  // configs/smoke_group_norm_silu.json's problems held in shared memory take 16 and 8 there, so
  // that the GPU tests run both instantiations.
  EXPECT_EQ(plan_grid_registers(channels_last({2, 320, 131, 127}, 32, DType::float16), 132)
                .shared_vectors,
            16);
  EXPECT_EQ(plan_grid_registers(channels_last({1, 256, 137, 137}, 32, DType::float32), 132)
                .shared_vectors,
            8);
  // And one whose chunk has an odd number of float2 partials, so that the second sample's
  // start, staged in shared memory by 16-byte copies, lies half way into one.
  const ClusterTilesPlan odd =
      plan_grid_registers(channels_last({2, 600, 62, 63}, 15, DType::float32), 132);
  EXPECT_GT(odd.shared_vectors, 0);
  EXPECT_EQ(odd.chunk_groups * odd.cluster % 2, 1);
}

TEST(GridRegistersPlan, DeclinesNchwUnalignedRowsAndMoreThanTheChipHolds) {
  EXPECT_NE(
      plan_grid_registers(channels_last({2, 320, 8, 8}, 32, DType::float16, Layout::nchw), 132)
          .unsupported.find("NCHW"),
      std::string::npos);
  EXPECT_FALSE(
      plan_grid_registers(channels_last({2, 6, 5, 7}, 3, DType::float16), 132).unsupported.empty());
  // 8 x 512 x 64 x 64 bfloat16: 33.6 MB, more than 132 SMs hold in registers and shared memory.
  const ClusterTilesPlan large =
      plan_grid_registers(channels_last({8, 512, 64, 64}, 32, DType::bfloat16), 132);
  EXPECT_NE(large.unsupported.find("one wave"), std::string::npos) << large.unsupported;
}

// The vectors held in shared memory arrive by bulk copies, which need compute capability 9.0:
// on an older device the variant declines a shape that needs them, and still takes the others.
TEST(GridRegistersPlan, DeclinesSharedMemoryVectorsBelowComputeCapabilityNine) {
  const KernelVariant& variant = *find_kernel("group_norm.grid_registers");
  DeviceCaps a100 = testing::described_h100();
  a100.compute_capability_major = 8;
  a100.sm_count = 108;
  const ProblemShape held_in_shared = channels_last({2, 320, 128, 128}, 32, DType::float16);
  ASSERT_GT(plan_grid_registers(held_in_shared, 108).shared_vectors, 0);
  const KernelPlan older = plan_kernel(variant, held_in_shared, a100);
  ASSERT_TRUE(older.unsupported);
  EXPECT_NE(older.unsupported->find("bulk copies"), std::string::npos) << *older.unsupported;
  EXPECT_FALSE(plan_kernel(variant, held_in_shared, testing::described_h100()).unsupported);
  EXPECT_FALSE(
      plan_kernel(variant, channels_last({2, 320, 64, 64}, 32, DType::float16), a100).unsupported);
}

// The grid's samples are its z: more than CUDA allows there are declined by both plans, not
// launched to fail.
TEST(ClusterTilesPlan, DeclinesMoreSamplesThanTheGridTakes) {
  const ProblemShape many = channels_last({70000, 32, 1, 1}, 32, DType::float16);
  EXPECT_NE(plan_cluster_tiles(many, 132).unsupported.find("65535 samples"), std::string::npos);
  EXPECT_NE(plan_grid_registers(many, 132).unsupported.find("65535 samples"), std::string::npos);
  EXPECT_TRUE(plan_cluster_tiles(channels_last({65535, 32, 1, 1}, 32, DType::float16), 132)
                  .unsupported.empty());
}

}  // namespace
}  // namespace normbench
