#include "app/util/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "app/util/errors.hpp"

namespace normbench {

std::string read_text_file(const std::string& path, const std::string& what) {
  const std::string prefix = path + ": cannot read the " + what + ": ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError(prefix + "it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(prefix + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError(prefix + "read error");
  return text.str();
}

}  // namespace normbench
