// Reading a whole input file (a config, a report) with an error that names the file and why
// it cannot be read: missing, no permission, not a regular file (a directory; a FIFO, which
// would block; a device such as /dev/zero, which never ends), or larger than its limit.
#pragma once

#include <cstddef>
#include <string>

namespace normbench {

// The file's bytes. Throws UsageError "<path>: cannot read the <what>: <why>" (`what` is,
// say, "config" or "report"), and refuses a file of more than `max_bytes` before reading it.
std::string read_text_file(const std::string& path, const std::string& what, size_t max_bytes);

// Why `path` (after links) is not a regular file ("it is a FIFO; allowed: a regular file",
// "No such file or directory"), or empty: for files another library opens by path (dlopen
// would block on a FIFO).
std::string why_not_a_regular_file(const std::string& path);

}  // namespace normbench
