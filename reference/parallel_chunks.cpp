#include "reference/parallel_chunks.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/problem_shape.hpp"  // ceil_div

namespace normbench {

int default_thread_count() {
  if (const char* env = std::getenv("NORMBENCH_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for_chunks(int64_t n, int64_t chunk,
                         const std::function<void(int64_t, int64_t, int64_t)>& body, int threads) {
  if (n <= 0) return;
  const int64_t chunks = ceil_div(n, chunk);
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (int64_t c = next++; c < chunks; c = next++) {
      try {
        body(c, c * chunk, std::min(n, (c + 1) * chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = chunks;  // stop handing out work
      }
    }
  };
  const int64_t pool = std::min<int64_t>(std::max(1, threads), chunks);
  std::vector<std::thread> workers;
  for (int64_t t = 1; t < pool; ++t) workers.emplace_back(worker);
  worker();
  for (auto& w : workers) w.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace normbench
