// group_norm.grid_tiles on a described H100 (no GPU needed): the plan of the diffusion shapes in
// both layouts and all element types, the tiles covering every element exactly once with the
// access counts the kernel's reverse walk relies on, the shared memory that keeps two blocks
// per SM, the workspace, the declines and their reasons, and group_norm.default's choices.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/group_norm/grid_tiles_plan.hpp"
#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

using kernels::GridTilesGeometry;
using kernels::GridTilesPlan;
using kernels::kGridTilesThreads;
using kernels::plan_grid_tiles;

DeviceCaps h100() {
  return testing::described_h100();
}

ProblemShape group_norm(std::vector<int64_t> shape, int64_t groups, DType dtype, Layout layout,
                        bool affine = true, bool bias = true, DType param_dtype = DType::float32) {
  ProblemFormat format;
  format.dtype = dtype;
  format.param_dtype = dtype == DType::float32 ? DType::float32 : param_dtype;
  format.layout = layout;
  format.has_bias = bias;
  return make_problem_shape(Op::group_norm, std::move(shape), {}, groups, 1e-5, 1.0, affine,
                            format);
}

std::string chosen(const ProblemShape& p) {
  return plan_kernel(*find_kernel("group_norm.default"), p, h100()).dispatches_to;
}

// The diffusion shapes of the task: SD 1.5 / SDXL UNet and VAE, 32 groups.
std::vector<std::vector<int64_t>> diffusion_shapes() {
  return {{8, 512, 64, 64},   {2, 320, 64, 64},   {2, 640, 32, 32},   {2, 1280, 16, 16},
          {2, 1280, 8, 8},    {8, 320, 64, 64},   {2, 320, 128, 128}, {8, 960, 32, 32},
          {1, 512, 128, 128}, {1, 256, 256, 256}, {1, 128, 512, 512}, {1, 128, 8, 8}};
}

TEST(GridTilesPlan, TakesEveryDiffusionShapeInEveryFormat) {
  const KernelVariant* variant = find_kernel("group_norm.grid_tiles");
  ASSERT_NE(variant, nullptr);
  for (const auto& shape : diffusion_shapes())
    for (DType dtype : kAllDTypes)
      for (Layout layout : {Layout::nchw, Layout::nhwc})
        for (bool bias : {true, false}) {
          const ProblemShape p = group_norm(shape, 32, dtype, layout, true, bias);
          const KernelPlan plan = plan_kernel(*variant, p, h100());
          EXPECT_FALSE(plan.unsupported) << *plan.unsupported;
          EXPECT_TRUE(plan.launch);
          EXPECT_GT(plan.workspace_bytes, 0u);
        }
  // Without a weight, and bfloat16 data with float32 weights.
  for (Layout layout : {Layout::nchw, Layout::nhwc}) {
    EXPECT_FALSE(plan_kernel(*variant,
                             group_norm({2, 320, 64, 64}, 32, DType::bfloat16, layout, false),
                             h100())
                     .unsupported);
    EXPECT_FALSE(plan_kernel(*variant,
                             group_norm({2, 320, 64, 64}, 32, DType::bfloat16, layout, true, true,
                                        DType::bfloat16),
                             h100())
                     .unsupported);
  }
}

TEST(GridTilesPlan, CutsTheTargetShapeIntoOneWaveOfTiles) {
  // NHWC bf16 (8,512,64,64): 8 samples of 4096 rows of 1 KB.
  const GridTilesPlan nhwc =
      plan_grid_tiles(group_norm({8, 512, 64, 64}, 32, DType::bfloat16, Layout::nhwc), h100());
  ASSERT_EQ(nhwc.unsupported, "");
  const GridTilesGeometry& g = nhwc.geometry;
  EXPECT_EQ(g.vec, 8);
  EXPECT_EQ(g.column_threads, 64);  // 512 channels / 8
  EXPECT_EQ(g.row_lanes, 8);
  EXPECT_EQ(g.tiles_per_part, 33);  // 264 blocks (2 per SM) over 8 samples
  EXPECT_EQ(g.tile_extent, 125);    // rows: ceil(4096 / 33), 125 KB
  EXPECT_EQ(g.tiles, 264);
  EXPECT_TRUE(nhwc.cooperative);
  EXPECT_EQ(g.scratch_bytes, 8 * 512 * 8);  // a float2 per row lane and channel
  EXPECT_EQ(g.hold_slots, 10);              // 80 KB of 16-byte accesses per block
  EXPECT_EQ(nhwc.smem_bytes, 32768u + 10u * 512 * 16);
  EXPECT_EQ(nhwc.workspace_bytes, 256u * 33 * 8 + 3u * 8 * 512 * 4);

  // NCHW: 256 groups of 128 KB, one tile each, no grid barrier needed.
  const GridTilesPlan nchw =
      plan_grid_tiles(group_norm({8, 512, 64, 64}, 32, DType::bfloat16, Layout::nchw), h100());
  ASSERT_EQ(nchw.unsupported, "");
  EXPECT_EQ(nchw.geometry.vec, 8);
  EXPECT_EQ(nchw.geometry.tiles_per_part, 1);
  EXPECT_EQ(nchw.geometry.tile_extent, 65536);
  EXPECT_EQ(nchw.geometry.tiles, 256);
  EXPECT_FALSE(nchw.cooperative);
}

TEST(GridTilesPlan, KeepsTwoBlocksPerSmAndTilesWithinBounds) {
  const DeviceCaps caps = h100();
  for (const auto& shape : diffusion_shapes())
    for (DType dtype : kAllDTypes)
      for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        const ProblemShape p = group_norm(shape, 32, dtype, layout);
        const GridTilesPlan plan = plan_grid_tiles(p, caps);
        ASSERT_EQ(plan.unsupported, "");
        const GridTilesGeometry& g = plan.geometry;
        // Two blocks and the 1 KB the hardware reserves for each fit in an SM.
        EXPECT_LE(2 * (plan.smem_bytes + 1024), caps.shared_memory_per_sm);
        EXPECT_EQ(g.vec, 16 / dtype_bytes(dtype));  // every diffusion shape is 16-byte aligned
        const int64_t bytes = dtype_bytes(dtype);
        const int64_t tile_bytes =
            g.channels_last ? g.tile_extent * p.channels * bytes : g.tile_extent * bytes;
        EXPECT_LE(tile_bytes, kernels::kGridTilesMaxTileBytes);
        // At most one wave of 264 blocks unless tiles are at their largest.
        if (g.tiles > 2 * caps.sm_count) {
          EXPECT_GT(tile_bytes, kernels::kGridTilesMaxTileBytes / 2);
        }
        EXPECT_EQ(plan.cooperative, g.tiles_per_part > 1);
        EXPECT_GE(plan.workspace_bytes, static_cast<size_t>(p.num_segments * g.tiles_per_part * 8 +
                                                            3 * p.num_elements / p.spatial * 4));
      }
}

// The kernel's loops over one tile, replayed on the host: thread t's accesses, in order.
// Marks every element they touch and returns how many accesses thread t made.
int64_t replay_tile(const GridTilesGeometry& g, int64_t tile, int t, std::vector<int>& touched) {
  const int64_t part = tile % g.tiles_per_part, outer = tile / g.tiles_per_part;
  int64_t accesses = 0;
  if (g.channels_last) {
    const int64_t row0 = part * g.tile_extent;
    const int64_t rows = std::min(g.tile_extent, g.spatial - row0);
    const int lane_col = t % g.column_threads, lane_row = t / g.column_threads;
    if (lane_row >= g.row_lanes) return 0;
    for (int64_t col = lane_col; col < g.channels / g.vec; col += g.column_threads)
      for (int64_t row = lane_row; row < rows; row += g.row_lanes, ++accesses)
        for (int e = 0; e < g.vec; ++e)
          ++touched[static_cast<size_t>((outer * g.spatial + row0 + row) * g.channels +
                                        col * g.vec + e)];
    return accesses;
  }
  const int64_t begin = part * g.tile_extent;
  const int64_t len = std::min(g.tile_extent, g.group_elements - begin);
  for (int64_t i = int64_t{t} * g.vec; i < len; i += int64_t{kGridTilesThreads} * g.vec, ++accesses)
    for (int e = 0; e < g.vec; ++e)
      ++touched[static_cast<size_t>(outer * g.group_elements + begin + i + e)];
  return accesses;
}

TEST(GridTilesPlan, TilesCoverEveryElementOnceWithTheCountedAccesses) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t groups;
    DType dtype;
  };
  const std::vector<Case> cases = {
      {{8, 512, 64, 64}, 32, DType::bfloat16}, {{2, 320, 64, 64}, 32, DType::bfloat16},
      {{2, 1280, 8, 8}, 32, DType::float16},   {{2, 320, 32, 32}, 32, DType::float32},
      {{3, 6, 5, 7}, 3, DType::float32},       {{3, 6, 5, 7}, 3, DType::bfloat16},
      {{2, 12, 4, 4}, 12, DType::float16},     {{4, 8}, 2, DType::bfloat16},
      {{2, 4, 181, 181}, 1, DType::float32},   {{1, 4100, 3, 3}, 41, DType::float32}};
  for (const Case& c : cases)
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
      const ProblemShape p = group_norm(c.shape, c.groups, c.dtype, layout);
      const GridTilesPlan plan = plan_grid_tiles(p, h100());
      ASSERT_EQ(plan.unsupported, "");
      const GridTilesGeometry& g = plan.geometry;
      std::vector<int> touched(static_cast<size_t>(p.num_elements), 0);
      for (int64_t tile = 0; tile < g.tiles; ++tile)
        for (int t = 0; t < kGridTilesThreads; ++t)
          ASSERT_EQ(replay_tile(g, tile, t, touched), g.thread_chunks(tile, t))
              << "tile " << tile << " thread " << t;
      for (size_t i = 0; i < touched.size(); ++i)
        ASSERT_EQ(touched[i], 1) << "element " << i << " of " << layout_name(layout) << " "
                                 << dtype_name(c.dtype) << " shape[1] " << c.shape[1];
    }
}

TEST(GridTilesPlan, UnalignedRowsUseOneElementAccesses) {
  // 6 float32 channels: rows of 24 bytes; 5 x 7 spatial: channels of 35 elements.
  const ProblemShape odd = group_norm({3, 6, 5, 7}, 3, DType::float32, Layout::nhwc);
  EXPECT_EQ(plan_grid_tiles(odd, h100()).geometry.vec, 1);
  EXPECT_EQ(plan_grid_tiles(group_norm({3, 6, 5, 7}, 3, DType::float32, Layout::nchw), h100())
                .geometry.vec,
            1);
  // 8 bfloat16 channels are one 16-byte access; 4 float32 spatial elements are one too.
  EXPECT_EQ(plan_grid_tiles(group_norm({2, 8, 3, 3}, 4, DType::bfloat16, Layout::nhwc), h100())
                .geometry.vec,
            8);
  EXPECT_EQ(plan_grid_tiles(group_norm({2, 8, 2, 2}, 4, DType::float32, Layout::nchw), h100())
                .geometry.vec,
            4);
}

TEST(GridTilesPlan, WithoutCooperativeLaunchEveryTileIsAWholePart) {
  DeviceCaps caps = h100();
  caps.cooperative_launch = false;
  const GridTilesPlan nhwc =
      plan_grid_tiles(group_norm({2, 320, 64, 64}, 32, DType::bfloat16, Layout::nhwc), caps);
  ASSERT_EQ(nhwc.unsupported, "");
  EXPECT_FALSE(nhwc.cooperative);
  EXPECT_EQ(nhwc.geometry.tiles_per_part, 1);
  EXPECT_EQ(nhwc.geometry.tile_extent, 4096);
  const GridTilesPlan nchw =
      plan_grid_tiles(group_norm({2, 320, 64, 64}, 32, DType::bfloat16, Layout::nchw), caps);
  EXPECT_FALSE(nchw.cooperative);
  EXPECT_EQ(nchw.geometry.tiles, 64);
}

TEST(GridTilesPlan, DeclinesWithReasons) {
  const KernelVariant& variant = *find_kernel("group_norm.grid_tiles");
  // 20000 float32 channels in one row: 160 KB of per-channel sums, more than a block's share.
  const auto wide = plan_kernel(
      variant, group_norm({1, 20000, 4, 4}, 1, DType::float32, Layout::nhwc, true), h100());
  ASSERT_TRUE(wide.unsupported);
  EXPECT_NE(wide.unsupported->find("shared memory"), std::string::npos) << *wide.unsupported;
  // A group of 2^32 elements: offsets in a group are 32-bit.
  const auto long_group = plan_kernel(
      variant,
      group_norm({1, 1, int64_t{1} << 16, int64_t{1} << 16}, 1, DType::bfloat16, Layout::nchw),
      h100());
  ASSERT_TRUE(long_group.unsupported);
  EXPECT_NE(long_group.unsupported->find("2^32"), std::string::npos) << *long_group.unsupported;
  // Another op's problem.
  const ProblemShape rows = make_problem_shape(Op::layer_norm, {4, 64}, {64}, 0, 1e-5, 1.0, true);
  EXPECT_TRUE(plan_kernel(variant, rows, h100()).unsupported);
}

// Channels-last x of 1 MB or more that one wave of the grid holds: grid_registers; up to 8 MB
// that a cluster holds: cluster_tiles; up to 24 MB of 16-byte rows of at most 256 vectors:
// channel_sums; larger: grid_tiles (kernels/NOTES.md).
std::string channels_last_choice(const ProblemShape& p) {
  const int64_t bytes = p.num_elements * dtype_bytes(p.dtype);
  const auto takes = [&](const char* id) {
    return !plan_kernel(*find_kernel(id), p, h100()).unsupported;
  };
  if (bytes >= (int64_t{1} << 20) && takes("group_norm.grid_registers"))
    return "group_norm.grid_registers";
  if (bytes <= (int64_t{8} << 20) && takes("group_norm.cluster_tiles"))
    return "group_norm.cluster_tiles";
  if (bytes <= (int64_t{24} << 20) && takes("group_norm.channel_sums"))
    return "group_norm.channel_sums";
  return "group_norm.grid_tiles";
}

TEST(GridTilesDispatch, NonClassicProblemsTakeGridTilesAndClassicOnesKeepTheirKernels) {
  int held = 0, clusters = 0;
  for (const auto& shape : diffusion_shapes()) {
    for (DType dtype : {DType::bfloat16, DType::float16}) {
      EXPECT_EQ(chosen(group_norm(shape, 32, dtype, Layout::nchw)), "group_norm.grid_tiles");
      const ProblemShape nhwc = group_norm(shape, 32, dtype, Layout::nhwc);
      EXPECT_EQ(chosen(nhwc), channels_last_choice(nhwc));
      held += chosen(nhwc) == "group_norm.grid_registers";
      clusters += chosen(nhwc) == "group_norm.cluster_tiles";
    }
    const ProblemShape nhwc32 = group_norm(shape, 32, DType::float32, Layout::nhwc);
    EXPECT_EQ(chosen(nhwc32), channels_last_choice(nhwc32));
    // A weight without a bias, and bfloat16 data with float32 weights.
    EXPECT_EQ(chosen(group_norm(shape, 32, DType::float32, Layout::nchw, true, false)),
              "group_norm.grid_tiles");
    EXPECT_EQ(
        chosen(group_norm(shape, 32, DType::bfloat16, Layout::nchw, true, true, DType::float32)),
        "group_norm.grid_tiles");
  }
  EXPECT_GE(held, 8);
  EXPECT_GE(clusters, 2);
  // Classic float32 NCHW problems keep their choices.
  EXPECT_EQ(chosen(group_norm({112, 64, 512, 512}, 8, DType::float32, Layout::nchw)),
            "group_norm.lookahead");
  EXPECT_EQ(chosen(group_norm({2, 12, 4, 4}, 12, DType::float32, Layout::nchw)),
            "group_norm.block_per_group");
  EXPECT_EQ(chosen(group_norm({8, 512, 64, 64}, 32, DType::float32, Layout::nchw, false)),
            "group_norm.lookahead");  // groups of 64K elements
  EXPECT_EQ(chosen(group_norm({2, 320, 32, 32}, 32, DType::float32, Layout::nchw, false)),
            "group_norm.block_per_group");
}

}  // namespace

TEST(ChannelSumsPlan, TakesChannelsLastRowsOfSixteenByteVectorsAndDeclinesTheRest) {
  const KernelVariant& variant = *find_kernel("group_norm.channel_sums");
  // SDXL's 2 x 640 x 64 x 64 in bfloat16: 80 vectors a row, 3 lanes of 8 positions a tile, so
  // 171 tiles a sample; partials of 2 x 171 x 32 groups and a float4 per (sample, channel).
  const KernelPlan sdxl =
      plan_kernel(variant, group_norm({2, 640, 64, 64}, 32, DType::bfloat16, Layout::nhwc), h100());
  ASSERT_FALSE(sdxl.unsupported) << *sdxl.unsupported;
  EXPECT_EQ(sdxl.workspace_bytes, size_t{2 * 171 * 32 * 8 + 2 * 640 * 16});
  EXPECT_TRUE(sdxl.launch);
  const auto declined = [&](const ProblemShape& p) {
    const KernelPlan plan = plan_kernel(variant, p, h100());
    return plan.unsupported.value_or("");
  };
  EXPECT_NE(declined(group_norm({2, 640, 64, 64}, 32, DType::bfloat16, Layout::nchw)).find("NCHW"),
            std::string::npos);
  // 6 channels of float16: 12-byte rows.
  EXPECT_NE(declined(group_norm({2, 6, 4, 4}, 3, DType::float16, Layout::nhwc)).find("16-byte"),
            std::string::npos);
  // 4096 float16 channels: 512 vectors a row, more than a block's threads.
  EXPECT_NE(declined(group_norm({1, 4096, 4, 4}, 32, DType::float16, Layout::nhwc)).find("256"),
            std::string::npos);
}

}  // namespace normbench
