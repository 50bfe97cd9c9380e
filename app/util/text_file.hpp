// Reading a whole input file (a config, a report) with an error that names the file and why
// it cannot be read: missing, a directory, no permission.
#pragma once

#include <string>

namespace normbench {

// The file's bytes. Throws UsageError "<path>: cannot read the <what>: <why>" (`what` is,
// say, "config" or "report").
std::string read_text_file(const std::string& path, const std::string& what);

}  // namespace normbench
