#include "app/run/device_schedule.hpp"

#include <algorithm>

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
std::string allowed_devices() {
  return "allowed: all, or CUDA device indices separated by commas, each once (e.g. 0,1)";
}
}  // namespace

DeviceSelection parse_devices(const std::string& text) {
  DeviceSelection selection;
  if (text == "all") {
    selection.all = true;
    return selection;
  }
  const auto fail = [&](const std::string& why) {
    throw UsageError("--devices " + shown(text) + ": " + why + "; " + allowed_devices());
  };
  size_t begin = 0;
  for (;;) {
    const size_t comma = text.find(',', begin);
    const std::string item =
        text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (item.empty()) fail("an empty item");
    if (item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
      fail("\"" + shown(item) + "\" is not a device index");
    const int index = std::stoi(item);
    if (std::find(selection.indices.begin(), selection.indices.end(), index) !=
        selection.indices.end())
      fail("device " + item + " is named twice (one worker per GPU)");
    selection.indices.push_back(index);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return selection;
}

std::vector<int> resolve_devices(const DeviceSelection& selection, int visible,
                                 const std::string& text) {
  if (selection.all) {
    std::vector<int> all;
    for (int i = 0; i < visible; ++i) all.push_back(i);
    return all;
  }
  for (int index : selection.indices)
    if (index >= visible)
      throw UsageError("--devices " + shown(text) + ": no GPU " + std::to_string(index) +
                       "; allowed: " +
                       (visible == 1 ? std::string("0") : "0 to " + std::to_string(visible - 1)) +
                       " (" + std::to_string(visible) + " visible), or all");
  return selection.indices;
}

int threads_per_device(int total, size_t devices) {
  const int others = static_cast<int>(devices > 0 ? devices - 1 : 0);
  return std::max(1, total - others);
}

std::vector<QueuedProblem> handing_order(std::vector<QueuedProblem> problems, size_t devices) {
  if (devices <= 1) return problems;
  std::stable_sort(problems.begin(), problems.end(),
                   [](const QueuedProblem& a, const QueuedProblem& b) { return a.cost > b.cost; });
  return problems;
}

std::optional<size_t> admissible(const std::vector<QueuedProblem>& pending,
                                 uint64_t in_flight_bytes, size_t in_flight,
                                 std::optional<uint64_t> budget) {
  if (pending.empty()) return std::nullopt;
  if (in_flight == 0 || !budget) return 0;
  for (size_t i = 0; i < pending.size(); ++i)
    if (pending[i].host_bytes <= *budget && in_flight_bytes <= *budget - pending[i].host_bytes)
      return i;
  return std::nullopt;
}

ProblemQueue::ProblemQueue(std::vector<QueuedProblem> in_order, std::optional<uint64_t> budget)
    : pending_(std::move(in_order)), budget_(budget) {}

std::optional<size_t> ProblemQueue::take() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (closed_ || pending_.empty()) return std::nullopt;
    uint64_t bytes = 0;
    for (const QueuedProblem& r : running_) bytes += r.host_bytes;
    if (const auto at = admissible(pending_, bytes, running_.size(), budget_)) {
      running_.push_back(pending_[*at]);
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(*at));
      return running_.back().index;
    }
    changed_.wait(lock);
  }
}

void ProblemQueue::finish(size_t index) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_.erase(std::remove_if(running_.begin(), running_.end(),
                                  [index](const QueuedProblem& r) { return r.index == index; }),
                   running_.end());
  }
  changed_.notify_all();
}

void ProblemQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

}  // namespace normbench
