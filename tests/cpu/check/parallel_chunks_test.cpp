// The chunked parallel loop every host-side pass uses: each chunk exactly once, with the same
// bounds for any thread count, and the first exception rethrown.
#include "reference/parallel_chunks.hpp"
#include "kernels/problem_shape.hpp"  // ceil_div

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

namespace normbench {
namespace {

using Chunk = std::tuple<int64_t, int64_t, int64_t>;  // index, begin, end

std::vector<Chunk> chunks_seen(int64_t n, int64_t chunk, int threads) {
  std::vector<Chunk> seen;
  std::mutex mutex;
  parallel_for_chunks(
      n, chunk,
      [&](int64_t index, int64_t begin, int64_t end) {
        std::lock_guard<std::mutex> lock(mutex);
        seen.emplace_back(index, begin, end);
      },
      threads);
  std::sort(seen.begin(), seen.end());
  return seen;
}

TEST(Parallel, EveryChunkOnceWithTheSameBoundsForAnyThreadCount) {
  const std::vector<Chunk> expected = {{0, 0, 3}, {1, 3, 6}, {2, 6, 9}, {3, 9, 10}};
  for (int threads : {0, 1, 2, 3, 16}) {
    SCOPED_TRACE(threads);
    EXPECT_EQ(chunks_seen(10, 3, threads), expected);
  }
  EXPECT_EQ(chunks_seen(6, 3, 2), (std::vector<Chunk>{{0, 0, 3}, {1, 3, 6}}));
  EXPECT_EQ(chunks_seen(2, 100, 4), (std::vector<Chunk>{{0, 0, 2}}));
  EXPECT_TRUE(chunks_seen(0, 3, 4).empty());
}

TEST(Parallel, RethrowsTheExceptionOfABody) {
  const auto failing = [](int64_t index, int64_t, int64_t) {
    if (index == 2) throw std::runtime_error("chunk 2 failed");
  };
  for (int threads : {1, 4}) {
    try {
      parallel_for_chunks(100, 10, failing, threads);
      FAIL() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "chunk 2 failed");
    }
  }
}

TEST(Parallel, DefaultThreadCountReadsTheEnvironment) {
  const char* saved = std::getenv("NORMBENCH_THREADS");
  const std::string restore = saved ? saved : "";
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ::setenv("NORMBENCH_THREADS", "3", 1);
  EXPECT_EQ(default_thread_count(), 3);
  ::setenv("NORMBENCH_THREADS", "0", 1);  // not positive: ignored
  EXPECT_EQ(default_thread_count(), hardware);
  ::setenv("NORMBENCH_THREADS", "many", 1);
  EXPECT_EQ(default_thread_count(), hardware);
  ::unsetenv("NORMBENCH_THREADS");
  EXPECT_EQ(default_thread_count(), hardware);
  if (saved) ::setenv("NORMBENCH_THREADS", restore.c_str(), 1);
}

TEST(Parallel, CeilDiv) {
  EXPECT_EQ(ceil_div(10, 3), 4);
  EXPECT_EQ(ceil_div(9, 3), 3);
  EXPECT_EQ(ceil_div(1, 65536), 1);
  EXPECT_EQ(ceil_div(0, 7), 0);
}

}  // namespace
}  // namespace normbench
