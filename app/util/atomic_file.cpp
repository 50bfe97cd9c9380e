#include "app/util/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace fs = std::filesystem;

void check_output_path(const std::string& path) {
  const std::string name = shown(path);
  if (path.empty()) throw UsageError("an empty output path; allowed: a file path");
  // Renaming onto a directory fails only at commit(): catch it here, before a long run, and
  // before a "newdir/" is created.
  const fs::path file_name = fs::path(path).filename();
  if (file_name.empty() || file_name == "." || file_name == "..")
    throw UsageError(name + ": names a directory; allowed: a file path");
  // A file name past the folder's limit (NAME_MAX) passes the temporary's creation, whose own
  // name is short, and fails only the final rename, after the whole run: refused here.
  const fs::path folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
  const long name_max = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  const size_t limit = name_max > 0 ? static_cast<size_t>(name_max) : size_t{255};
  if (file_name.string().size() > limit)
    throw UsageError(name + ": its file name is " + std::to_string(file_name.string().size()) +
                     " bytes long; allowed: at most " + std::to_string(limit));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // absent (or unreachable: the open will say)
  if (S_ISDIR(st.st_mode)) throw UsageError(name + ": is a directory; allowed: a file path");
  if (!S_ISREG(st.st_mode))
    throw UsageError(name + ": exists and is " +
                     (S_ISLNK(st.st_mode)    ? "a symbolic link"
                      : S_ISFIFO(st.st_mode) ? "a FIFO"
                      : S_ISCHR(st.st_mode)  ? "a character device"
                      : S_ISBLK(st.st_mode)  ? "a block device"
                                             : "not a regular file") +
                     ", which writing would replace; allowed: a regular file or a new path");
  // The file is replaced by a rename, which needs only the folder's permission: a file the user
  // may not write (another user's, mode 644, in a folder open to all) would be replaced where
  // writing it in place is refused. Refused as writing would be.
  if (::access(path.c_str(), W_OK) != 0 && errno == EACCES)
    throw UsageError(name +
                     ": exists and is not writable by this user (permission denied); "
                     "allowed: a file you may write, or a new path");
  // In a sticky folder (/tmp) only the file's or the folder's owner may replace the file: the
  // rename after the run would fail.
  struct stat dir {};
  if (::geteuid() != 0 && st.st_uid != ::geteuid() && ::stat(folder.c_str(), &dir) == 0 &&
      (dir.st_mode & S_ISVTX) != 0 && dir.st_uid != ::geteuid())
    throw UsageError(name +
                     ": exists, is another user's and lies in a folder with the sticky bit, so it "
                     "cannot be replaced; allowed: a file of yours or a new path");
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  check_output_path(path_);
  const fs::path target(path_);
  // The folders this file creates, deepest first, go again with it if it is never committed:
  // a run refused after check_writable (or one that found no GPU) must leave nothing behind.
  std::error_code ec;
  for (fs::path p = target.parent_path();
       !p.empty() && fs::symlink_status(p, ec).type() == fs::file_type::not_found;
       p = p.parent_path())
    created_dirs_.push_back(p);
  ec.clear();
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) {
    remove_created_dirs();
    throw UsageError(shown(path_) + ": cannot create directory: " + ec.message());
  }
  // Not the target's name plus a suffix: a name of NAME_MAX (255) bytes, legal for the target,
  // would be too long for its temporary. A short name in the same folder (the rename stays on
  // one file system), unique per process and per file written.
  static std::atomic<unsigned> files_opened{0};
  const std::string temp_name =
      ".normbench.tmp." + std::to_string(::getpid()) + "." + std::to_string(files_opened++);
  temp_path_ = (target.parent_path() / temp_name).string();
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const int error = errno;
    remove_created_dirs();
    throw UsageError(shown(path_) + ": cannot write: " + std::strerror(error));
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::remove(temp_path_.c_str());
    remove_created_dirs();
  }
}

void AtomicFile::remove_created_dirs() {
  // rmdir: only while empty, so that a folder another file came to fill stays.
  for (const fs::path& dir : created_dirs_) ::rmdir(dir.c_str());
}

void AtomicFile::write(const void* data, size_t bytes) {
  out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out_) throw OutputError(shown(path_) + ": write failed: " + std::strerror(errno));
}

void AtomicFile::commit() {
  out_.flush();
  out_.close();
  if (!out_) throw OutputError(shown(path_) + ": write failed: " + std::strerror(errno));
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    // The temporary is complete: keep it rather than lose what may have taken a long run.
    const int error = errno;
    committed_ = true;
    throw OutputError(shown(path_) + ": cannot rename the written file onto it: " +
                      std::strerror(error) + "; the complete file is left at " + shown(temp_path_));
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

void check_writable(const std::string& path) {
  AtomicFile probe(path);  // removed again by its destructor
}

fs::path resolved_path(const std::string& path, std::error_code& error) {
  // Absolute first: of a path none of which exists, weakly_canonical keeps it relative.
  const fs::path p = fs::weakly_canonical(fs::absolute(path, error), error).lexically_normal();
  return p.filename().empty() ? p.parent_path() : p;  // "tensors/" as "tensors"
}

void refuse_overwriting_inputs(const std::string& option, const std::string& output,
                               const std::vector<std::string>& inputs) {
  std::error_code ec;
  const fs::path out = resolved_path(output, ec);
  if (ec) return;  // unresolvable: the write itself will report it
  for (const auto& input : inputs) {
    const fs::path in = resolved_path(input, ec);
    if (!ec && in == out)
      throw UsageError(option + " " + shown(output) + ": is the input file " + shown(input) +
                       ", which writing would overwrite; allowed: a path that is not an input");
  }
}

}  // namespace normbench
