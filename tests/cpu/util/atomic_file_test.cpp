// Files that appear complete or not at all, and the up-front writability check.
#include "app/util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(AtomicFile, WritesContentAndCreatesParents) {
  TempDir dir;
  const std::string path = dir.file("a/b/report.json");
  write_file_atomically(path, "{\"ok\": true}\n");
  EXPECT_EQ(testing::read_text(path), "{\"ok\": true}\n");
  // Nothing else: no temporary left beside the file.
  auto entries = dir.entries();
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"a", "a/b", "a/b/report.json"}));
}

// The temporary's name must fit NAME_MAX where the target's does: "<name>.tmp.<pid>" did not.
TEST(AtomicFile, WritesAFileWhoseNameIsTheLongestAllowed) {
  TempDir dir;
  const std::string path = dir.file(std::string(255, 'r'));
  write_file_atomically(path, "kept\n");
  EXPECT_EQ(testing::read_text(path), "kept\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{std::string(255, 'r')});
}

TEST(AtomicFile, ReplacesAnExistingFileOnlyOnCommit) {
  TempDir dir;
  const std::string path = dir.file("out.bin");
  testing::write_text(path, "old");
  {
    AtomicFile file(path);
    file.write("new ");
    file.write(std::string("content\0!", 9));    // binary-safe
    EXPECT_EQ(testing::read_text(path), "old");  // not yet
    file.commit();
  }
  EXPECT_EQ(testing::read_text(path), std::string("new content\0!", 13));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.bin"});
}

TEST(AtomicFile, DestroyedWithoutCommitLeavesNothing) {
  TempDir dir;
  {
    AtomicFile file(dir.file("never.json"));
    file.write("partial");
  }
  EXPECT_TRUE(dir.entries().empty());

  testing::write_text(dir.file("kept.json"), "previous");
  {
    AtomicFile file(dir.file("kept.json"));
    file.write("partial");
  }
  EXPECT_EQ(testing::read_text(dir.file("kept.json")), "previous");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"kept.json"});
}

TEST(AtomicFile, FailsWithUsageErrorUnderARegularFile) {
  TempDir dir;
  testing::write_text(dir.file("plain"), "x");
  const std::string path = dir.file("plain/report.json");  // a file is not a folder
  try {
    check_writable(path);
    FAIL() << "check_writable accepted " << path;
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_file_atomically(path, "x"), UsageError);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"plain"});
}

TEST(AtomicFile, ADirectoryAsTargetFailsUpFront) {
  // The rename onto a directory would fail only at commit(), after a whole run.
  TempDir dir;
  fs::create_directory(dir.file("taken"));
  try {
    check_writable(dir.file("taken"));
    FAIL() << "check_writable accepted a directory";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.file("taken") + ": is a directory"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(write_file_atomically(dir.file("taken"), "x"), UsageError);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"taken"});
}

TEST(AtomicFile, CheckWritableLeavesNoFile) {
  TempDir dir;
  EXPECT_NO_THROW(check_writable(dir.file("report.json")));
  EXPECT_FALSE(fs::exists(dir.file("report.json")));
  for (const auto& name : dir.entries()) EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
}

// A run refused after the check (a bad --save-tensors, no GPU) must not leave "out/" behind;
// a folder that was there before stays.
TEST(AtomicFile, CheckWritableLeavesNoFolderItCreated) {
  TempDir dir;
  fs::create_directory(dir.file("kept"));
  EXPECT_NO_THROW(check_writable(dir.file("kept/new/deeper/report.json")));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"kept"});
  {
    AtomicFile file(dir.file("new/report.json"));
    file.write("partial");
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"kept"});
}

// The rename would replace a link, a FIFO or a device (as root, /dev/null itself) instead of
// writing through it; a path ending in '/' would have its folder created first.
TEST(AtomicFile, RefusesToReplaceWhatIsNotARegularFile) {
  TempDir dir;
  testing::write_text(dir.file("target.json"), "kept");
  fs::create_symlink(dir.file("target.json"), dir.file("link.json"));
  ASSERT_EQ(::mkfifo(dir.file("fifo.json").c_str(), 0600), 0);
  const struct {
    std::string path;
    std::string message;
  } cases[] = {
      {dir.file("link.json"), ": exists and is a symbolic link, which writing would replace"},
      {dir.file("fifo.json"), ": exists and is a FIFO, which writing would replace"},
      {"/dev/null", "/dev/null: exists and is a character device, which writing would replace"},
      {dir.file("newdir/"), "newdir/: names a directory; allowed: a file path"},
      {dir.file("newdir/."), "newdir/.: names a directory"},
      {"", "an empty output path"},
  };
  for (const auto& c : cases) {
    try {
      AtomicFile file(c.path);
      ADD_FAILURE() << "accepted " << c.path;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
    EXPECT_THROW(check_output_path(c.path), UsageError) << c.path;
  }
  EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
  EXPECT_EQ(testing::read_text(dir.file("target.json")), "kept");
  EXPECT_FALSE(fs::exists(dir.file("newdir")));                 // nothing created
  EXPECT_NO_THROW(check_output_path(dir.file("target.json")));  // a regular file is replaced
  EXPECT_NO_THROW(check_output_path(dir.file("sub/new.json")));
}

// A name past the folder's limit would pass the temporary's creation (its own name is short) and
// fail only at the final rename, after a whole run: it is refused up front.
// A rename replaces a file its user may not write wherever the folder allows it (another
// user's file of mode 644 in a folder open to all): refused up front, as writing it would be.
// Root may write anything, so as root the check runs in a child that has become `nobody`.
TEST(AtomicFile, RefusesToReplaceAFileTheUserMayNotWrite) {
  TempDir dir;
  const std::string folder = dir.file("open");
  fs::create_directories(folder);
  fs::permissions(folder, fs::perms::all);
  const std::string path = folder + "/report.md";
  testing::write_text(path, "kept\n");
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto refused = [&] {
    try {
      check_output_path(path);
    } catch (const UsageError& e) {
      return std::string(e.what()).find("exists and is not writable by this user") !=
             std::string::npos;
    }
    return false;
  };
  if (::geteuid() != 0) {
    EXPECT_TRUE(refused());
  } else {
    fs::permissions(dir.path(), fs::perms::all);  // `nobody` must reach the folder
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(::setgid(65534) == 0 && ::setuid(65534) == 0 && refused() ? 0 : 1);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  EXPECT_EQ(testing::read_text(path), "kept\n");
}

TEST(AtomicFile, RefusesAFileNameLongerThanTheFolderAllows) {
  TempDir dir;
  const std::string path = dir.file(std::string(256, 'r'));
  try {
    check_writable(path);
    ADD_FAILURE() << "accepted a 256-byte name";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("its file name is 256 bytes long; allowed: at most 255"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(dir.entries().empty());
}

// A rename that fails after everything was written is the machine's failure (exit 3), and the
// complete file stays, under the name the message gives, rather than being lost.
TEST(AtomicFile, AFailedRenameKeepsTheCompleteFileAndSaysWhere) {
  TempDir dir;
  const std::string path = dir.file("report.json");
  AtomicFile file(path);
  file.write("all of it\n");
  fs::create_directory(path);  // appears meanwhile: the rename onto it fails
  testing::write_text(path + "/occupied", "");
  try {
    file.commit();
    ADD_FAILURE() << "renamed onto a directory";
  } catch (const OutputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot rename the written file onto it"), std::string::npos) << what;
    const std::string marker = "the complete file is left at ";
    const size_t at = what.find(marker);
    ASSERT_NE(at, std::string::npos) << what;
    const std::string kept = what.substr(at + marker.size());
    EXPECT_EQ(testing::read_text(kept), "all of it\n");
  }
}

}  // namespace
}  // namespace normbench
