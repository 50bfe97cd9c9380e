// Reading input files whole: what is refused before anything is read (FIFOs, devices,
// directories, files over the limit), with a message naming the file and why.
#include "app/util/text_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using testing::TempDir;

// The UsageError message of reading `path`, or "(read)".
std::string read_error(const std::string& path, size_t limit = 1000) {
  try {
    read_text_file(path, "config", limit);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(read)";
}

TEST(TextFile, ReadsARegularFileWhole) {
  TempDir dir;
  testing::write_text(dir.file("a.json"), std::string("{\"a\": 1}\0tail", 13));
  EXPECT_EQ(read_text_file(dir.file("a.json"), "config", 13), std::string("{\"a\": 1}\0tail", 13));
}

TEST(TextFile, AFileOverTheLimitIsRefusedBeforeItIsRead) {
  TempDir dir;
  testing::write_text(dir.file("big.json"), std::string(1001, ' '));
  EXPECT_EQ(read_error(dir.file("big.json")),
            dir.file("big.json") +
                ": cannot read the config: it is 1001 bytes (0 MiB); allowed: at most 1000 bytes "
                "(0 MiB)");
  // A sparse 200 MB file costs nothing to make and would cost 2 GB to parse.
  std::filesystem::resize_file(dir.file("big.json"), 200000000);
  EXPECT_NE(read_error(dir.file("big.json"), 16 << 20).find("it is 200000000 bytes (190 MiB)"),
            std::string::npos);
}

TEST(TextFile, DevicesFifosAndDirectoriesAreRefused) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  // Opening a FIFO for reading waits for a writer; it must be refused without waiting.
  EXPECT_EQ(read_error(dir.file("fifo")),
            dir.file("fifo") + ": cannot read the config: it is a FIFO; allowed: a regular file");
  EXPECT_EQ(read_error("/dev/zero"),
            "/dev/zero: cannot read the config: it is a character device; allowed: a regular "
            "file");
  EXPECT_EQ(read_error(dir.path()), dir.path() + ": cannot read the config: it is a directory");
  EXPECT_EQ(read_error(dir.file("missing")),
            dir.file("missing") + ": cannot read the config: No such file or directory");
  EXPECT_EQ(why_not_a_regular_file(dir.file("fifo")), "it is a FIFO; allowed: a regular file");
  EXPECT_EQ(why_not_a_regular_file("/dev/null"),
            "it is a character device; allowed: a regular file");
}

TEST(TextFile, ALongPathIsShortenedInTheMessage) {
  const std::string path = "/" + std::string(5000, 'p');
  const std::string message = read_error(path);
  EXPECT_LT(message.size(), 400u) << message;
  EXPECT_NE(message.find("... (5001 bytes in all): cannot read the config: "), std::string::npos)
      << message;
}

}  // namespace
}  // namespace normbench
