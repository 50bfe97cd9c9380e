// Releasing a parsed document without allocating: what is left must be empty containers and
// scalars only, so that its destructor has nothing to move onto a heap stack.
#include "app/util/json_parse.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace normbench {
namespace {

using nlohmann::json;

// Whether any container in `j` still holds something.
bool holds_anything(const json& j) {
  return (j.is_array() || j.is_object()) && !j.empty();
}

TEST(JsonParse, ReleasedDocumentsAreEmptyAtEveryLevel) {
  json document = parse_json_text(
      R"({"problems": [{"id": "a", "kernels": [{"timing": {"samples_ms": [1, 2, 3]}}]}],
          "name": "n", "deep": [[[[1]]]]})",
      "doc.json");
  ASSERT_TRUE(holds_anything(document));
  release_json(document);
  EXPECT_TRUE(document.is_object());
  EXPECT_FALSE(holds_anything(document));
  json scalar = 4;
  release_json(scalar);  // scalars are left as they are
  EXPECT_EQ(scalar, 4);
  json array = json::array({json::array({1, 2}), json::object({{"k", json::array({3})}})});
  release_json(array);
  EXPECT_TRUE(array.is_array());
  EXPECT_FALSE(holds_anything(array));
}

}  // namespace
}  // namespace normbench
