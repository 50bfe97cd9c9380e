// Checked reading of a JSON document: every accessor either returns a valid value or throws
// ConfigError "<source>: <json path>: <what is wrong>; allowed: <what is allowed>".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace normbench {

class CheckedJson {
 public:
  CheckedJson(const nlohmann::json& node, std::string source, std::string path = "")
      : node_(node), source_(std::move(source)), path_(std::move(path)) {}

  const nlohmann::json& node() const { return node_; }
  // "/problems/1/groups", or "/" for the document itself.
  std::string path() const { return path_.empty() ? "/" : path_; }
  [[noreturn]] void fail(const std::string& what) const;
  // Fails naming another path of the same document (say a setting inherited from /defaults).
  [[noreturn]] void fail_at(const std::string& path, const std::string& what) const;

  bool has(const std::string& key) const;
  CheckedJson at(const std::string& key) const;  // fails if missing
  CheckedJson at(size_t index) const;

  // Fails unless this is an object whose keys all appear in `allowed`.
  void expect_object(std::initializer_list<const char*> allowed) const;
  void expect_array() const;
  size_t size() const { return node_.size(); }

  bool as_bool() const;
  std::string as_string() const;
  // A finite number; `what` describes the allowed range in messages ("a number > 0").
  double as_finite_number() const;
  double as_number_above(double lower_exclusive) const;
  double as_number_at_least(double lower_inclusive) const;
  double as_number_in(double lower_exclusive, double upper_inclusive) const;
  int64_t as_int(int64_t min, int64_t max) const;
  uint64_t as_uint64() const;
  // A non-empty array of positive integers whose product (and that times 64 bytes) fits in
  // int64; used for shapes.
  std::vector<int64_t> as_dims() const;

 private:
  const nlohmann::json& node_;
  std::string source_;
  std::string path_;
};

// "[16, 64, 256]"
std::string format_dims(const std::vector<int64_t>& dims);

}  // namespace normbench
