// Version of normbench and the git revision it was built from (generated at build time).
#pragma once

namespace normbench {
const char* version();
const char* git_revision();  // "abc1234", "abc1234-dirty", or "unknown"
}  // namespace normbench
