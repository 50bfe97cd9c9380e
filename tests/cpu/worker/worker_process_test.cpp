// The worker process without a GPU: messages both ways, the three ways a worker is lost (it
// crashes, it hangs past the watchdog, it exits), each named, none taking the parent down, and
// siblings that do not hold each other's pipes.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "app/worker/worker_process.hpp"

namespace normbench {
namespace {

using nlohmann::json;

// Echoes each message's "n" doubled; on "crash" is killed by SIGSEGV, on "hang" sleeps forever,
// on "exit" returns 7.
int echo_worker(WorkerChannel& channel) {
  json message;
  while (channel.receive(message)) {
    const std::string cmd = message.value("cmd", "");
    if (cmd == "crash") {
      // With the default action, not a handler that a sanitizer installed (AddressSanitizer's
      // reports the SEGV and exits 1): the test is about a worker that a signal kills.
      std::signal(SIGSEGV, SIG_DFL);
      std::raise(SIGSEGV);
    }
    if (cmd == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
    if (cmd == "exit") return 7;
    channel.send({{"progress", 1}});
    channel.send({{"n", 2 * message.at("n").get<int>()}});
  }
  return 0;
}

std::string lost_message(WorkerProcess& worker, const json& message, double timeout_s) {
  try {
    worker.send(message);
    worker.receive(timeout_s);
    worker.receive(timeout_s);
  } catch (const WorkerLost& e) {
    return e.what();
  }
  return "(not lost)";
}

TEST(WorkerProcess, ExchangesMessages) {
  WorkerProcess worker(echo_worker);
  for (int n : {1, 2, 21}) {
    worker.send({{"n", n}});
    EXPECT_EQ(worker.receive(5.0), json({{"progress", 1}}));
    EXPECT_EQ(worker.receive(5.0).at("n"), 2 * n);
  }
  worker.stop();
}

TEST(WorkerProcess, ACrashIsNamedAndTheParentGoesOn) {
  WorkerProcess worker(echo_worker);
  const std::string what = lost_message(worker, {{"cmd", "crash"}}, 5.0);
  EXPECT_NE(what.find("crashed: SIGSEGV"), std::string::npos) << what;
  EXPECT_THROW(worker.receive(1.0), WorkerLost);  // it stays lost
}

TEST(WorkerProcess, AHangIsKilledAfterTheTimeout) {
  WorkerProcess worker(echo_worker);
  const auto start = std::chrono::steady_clock::now();
  const std::string what = lost_message(worker, {{"cmd", "hang"}}, 0.3);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(what.find("timed out: no answer within 0.3 s"), std::string::npos) << what;
  EXPECT_NE(what.find("the worker was killed"), std::string::npos) << what;
  EXPECT_LT(took, 3.0);
}

TEST(WorkerProcess, AnExitIsNamedWithItsStatus) {
  WorkerProcess worker(echo_worker);
  const std::string what = lost_message(worker, {{"cmd", "exit"}}, 5.0);
  EXPECT_NE(what.find("exited with status 7"), std::string::npos) << what;
}

// With several GPUs, workers are forked while their siblings' pipes are open. A worker that
// kept a copy of a sibling's input pipe would keep the sibling from seeing the end of its
// input: stopping it would wait for the kill instead (2 s).
TEST(WorkerProcess, AWorkerHoldsNoDescriptorsOfItsSiblings) {
  WorkerProcess first(echo_worker);
  WorkerProcess second(echo_worker);
  second.send({{"n", 1}});
  EXPECT_EQ(second.receive(5.0).at("progress"), 1);
  const auto start = std::chrono::steady_clock::now();
  first.stop();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 1.0) << "the first worker did not see the end of its input";
  EXPECT_EQ(second.receive(5.0).at("n"), 2);  // the sibling goes on
  second.stop();
}

TEST(WorkerProcess, DescribesExitStatuses) {
  EXPECT_EQ(describe_exit(3 << 8), "exited with status 3");
  EXPECT_NE(describe_exit(SIGKILL).find("SIGKILL"), std::string::npos);
}

}  // namespace
}  // namespace normbench
