// Names that normbench turns into file names and command-line arguments: problem ids (folders
// under --save-tensors), config names (the default report normbench-<name>.json) and plugin
// kernel ids (files under --save-tensors). A '/' or a leading '.' would let a name climb out of
// its folder ("..", "../../etc/x"), and a leading '-' reads as an option.
#pragma once

#include <cstddef>
#include <string_view>

namespace normbench {

// Long enough for any descriptive id, short enough for every file system's name limit (255
// bytes) once ".npy", ".s" or "normbench-" is added.
inline constexpr size_t kMaxFileSafeNameLength = 128;

inline constexpr const char* kFileSafeNameRule =
    "1 to 128 letters, digits, '_', '.', '-', starting with a letter, digit or '_'";

// Checked character by character (std::regex recurses once per character and overflows the
// stack on an id of some 26,000 characters).
bool is_file_safe_name(std::string_view name);

}  // namespace normbench
