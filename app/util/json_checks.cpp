#include "app/util/json_checks.hpp"

#include <cmath>
#include <limits>

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
std::string join_keys(std::initializer_list<const char*> keys) {
  std::string out;
  for (const char* k : keys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

// Short rendering of a JSON value for messages; long values are cut.
std::string shown_json(const nlohmann::json& v) {
  return shown(v.dump(), 60);
}

// JSON Pointer escaping of a key (RFC 6901).
std::string escape_key(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}
}  // namespace

void CheckedJson::fail(const std::string& what) const {
  // The path holds the document's keys, as long as the document made them.
  throw ConfigError(shown(source_) + ": " + shown(path()) + ": " + what);
}

void CheckedJson::fail_at(const std::string& path, const std::string& what) const {
  CheckedJson(node_, source_, path).fail(what);
}

bool CheckedJson::has(const std::string& key) const {
  return node_.is_object() && node_.contains(key);
}

CheckedJson CheckedJson::at(const std::string& key) const {
  if (!has(key)) fail("missing required field \"" + shown(key) + "\"");
  return CheckedJson(node_.at(key), source_, path_ + "/" + escape_key(key));
}

CheckedJson CheckedJson::at(size_t index) const {
  return CheckedJson(node_.at(index), source_, path_ + "/" + std::to_string(index));
}

void CheckedJson::expect_object(std::initializer_list<const char*> allowed) const {
  if (!node_.is_object()) fail("expected an object, got " + shown_json(node_));
  for (const auto& item : node_.items()) {
    bool known = false;
    for (const char* k : allowed) known = known || item.key() == k;
    if (!known)
      CheckedJson(item.value(), source_, path_ + "/" + escape_key(item.key()))
          .fail("unknown field; allowed: " + join_keys(allowed));
  }
}

void CheckedJson::expect_array() const {
  if (!node_.is_array()) fail("expected an array, got " + shown_json(node_));
}

bool CheckedJson::as_bool() const {
  if (!node_.is_boolean()) fail("expected true or false, got " + shown_json(node_));
  return node_.get<bool>();
}

std::string CheckedJson::as_string() const {
  if (!node_.is_string()) fail("expected a string, got " + shown_json(node_));
  return node_.get<std::string>();
}

double CheckedJson::as_finite_number() const {
  if (!node_.is_number()) fail("expected a number, got " + shown_json(node_));
  const double v = node_.get<double>();
  if (!std::isfinite(v)) fail("expected a finite number, got " + shown_json(node_));
  return v;
}

double CheckedJson::as_number_above(double lower_exclusive) const {
  const double v = as_finite_number();
  if (!(v > lower_exclusive))
    fail(shown_json(node_) + " is out of range; allowed: a number > " +
         shown_json(lower_exclusive));
  return v;
}

double CheckedJson::as_number_in(double lower_exclusive, double upper_inclusive) const {
  const double v = as_finite_number();
  if (!(v > lower_exclusive && v <= upper_inclusive))
    fail(shown_json(node_) + " is out of range; allowed: a number > " +
         shown_json(lower_exclusive) + " and <= " + shown_json(upper_inclusive));
  return v;
}

double CheckedJson::as_number_at_least(double lower_inclusive) const {
  const double v = as_finite_number();
  if (!(v >= lower_inclusive))
    fail(shown_json(node_) +
         " is out of range; allowed: a number >= " + shown_json(lower_inclusive));
  return v;
}

int64_t CheckedJson::as_int(int64_t min, int64_t max) const {
  const std::string allowed =
      "allowed: an integer from " + std::to_string(min) + " to " + std::to_string(max);
  // 1e3 and 8.0 arrive as doubles, shown as 1000.0 and 8.0: say why that is no integer.
  if (node_.is_number_float())
    fail("expected an integer, got " + shown_json(node_) +
         " (written with a point or an exponent; an integer is digits only); " + allowed);
  if (!node_.is_number_integer())
    fail("expected an integer, got " + shown_json(node_) + "; " + allowed);
  if (node_.is_number_unsigned() &&
      node_.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    fail(shown_json(node_) + " is out of range; " + allowed);
  const int64_t v = node_.get<int64_t>();
  if (v < min || v > max) fail(shown_json(node_) + " is out of range; " + allowed);
  return v;
}

uint64_t CheckedJson::as_uint64() const {
  if (!node_.is_number_integer() || (!node_.is_number_unsigned() && node_.get<int64_t>() < 0))
    fail("expected a non-negative integer, got " + shown_json(node_) +
         "; allowed: an integer from 0 to 18446744073709551615 (2^64 - 1)");
  return node_.get<uint64_t>();
}

std::vector<int64_t> CheckedJson::as_dims() const {
  expect_array();
  if (node_.empty()) fail("expected a non-empty array of positive integers, got []");
  std::vector<int64_t> dims;
  // Kernels and the harness index and count bytes with int64. 64 bytes per element cover every
  // count normbench makes of a problem (its minimum bytes: up to 20 per element, add_rms_norm
  // in float32; the host memory it takes: under 64), so none of them can overflow.
  const int64_t max_elements = std::numeric_limits<int64_t>::max() / 64;
  int64_t product = 1;
  for (size_t i = 0; i < node_.size(); ++i) {
    const int64_t d = at(i).as_int(1, max_elements);
    if (product > max_elements / d)
      fail(shown_json(node_) +
           " has too many elements: its byte counts would overflow 64-bit integers; allowed: a "
           "product of at most " +
           std::to_string(max_elements));
    product *= d;
    dims.push_back(d);
  }
  return dims;
}

std::string format_dims(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

}  // namespace normbench
