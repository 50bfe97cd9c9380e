// Files that appear complete or not at all: bytes go to a temporary file beside the target,
// which is renamed over it on commit(). Destroyed without commit(), the temporary is removed,
// and so are the parent folders it created.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace normbench {

class AtomicFile {
 public:
  // Checks the path (check_output_path), then creates the parent directories and the
  // temporary file; throws UsageError if it cannot.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws OutputError (exit 3) if the bytes cannot be written (a full disk).
  void write(const void* data, size_t bytes);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // Flushes, closes and renames the temporary onto the target; throws OutputError on failure,
  // leaving a complete temporary in place (and naming it) where only the rename failed.
  void commit();

 private:
  void remove_created_dirs();

  std::string path_;
  std::string temp_path_;
  std::vector<std::filesystem::path> created_dirs_;  // deepest first
  std::ofstream out_;
  bool committed_ = false;
};

void write_file_atomically(const std::string& path, const std::string& content);

// Throws UsageError naming `path` unless it can name the file written: not empty, not a
// directory ("out/", "out/."), a file name within the folder's limit, and either absent or a
// regular file that the final rename may replace (not another user's in a sticky folder). The
// rename would replace a symbolic link, a FIFO or a device (as root, /dev/null) rather than
// write through it. Creates nothing.
void check_output_path(const std::string& path);

// Throws UsageError naming `path` if a file cannot be created there (checked before a long run
// rather than after it). Leaves nothing: neither the file nor the folders it made to try.
void check_writable(const std::string& path);

// `path` made absolute, its links, "." and ".." resolved as far as it exists and the rest
// normalised, without a trailing "/": two spellings of one path compare equal, and one that lies
// inside another has the other's components as a prefix. Sets `error` where it cannot.
std::filesystem::path resolved_path(const std::string& path, std::error_code& error);

// Throws UsageError if `output` (given as `option`, e.g. "--out") is the same file as one of
// `inputs`: writing it would destroy an input. Paths are compared after resolving links,
// "." and "..", so "./a/../run.json" and "run.json" are the same file.
void refuse_overwriting_inputs(const std::string& option, const std::string& output,
                               const std::vector<std::string>& inputs);

}  // namespace normbench
