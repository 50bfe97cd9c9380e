#include "app/util/json_parse.hpp"

#include <new>
#include <vector>

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
using json = nlohmann::json;

// JSON Pointer escaping of a key (RFC 6901).
std::string escape_key(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

// Builds the document from nlohmann's SAX events while keeping the path to the value being
// parsed, so that an error can say where it is. nlohmann's SAX parser itself is iterative;
// the depth bound protects whatever walks the document afterwards (dump, destructors, checks).
class PathTrackingBuilder : public nlohmann::json_sax<json> {
 public:
  explicit PathTrackingBuilder(json& root) : root_(root) {}

  bool null() override { return add(json(nullptr)); }
  bool boolean(bool v) override { return add(json(v)); }
  bool number_integer(number_integer_t v) override { return add(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return add(json(v)); }
  bool number_float(number_float_t v, const string_t& text) override {
    // Only the double is kept: a number that underflows to it would be reported later as "0.0",
    // a value the file does not have. Here the text as written is still at hand.
    if (v == 0.0 && text.find_first_of("123456789") < text.find_first_of("eE"))
      return fail("the number " + shown(text) +
                  " underflows to 0; allowed: 0, or a magnitude of at least 4.9e-324");
    return add(json(v));
  }
  bool string(string_t& v) override { return add(json(std::move(v))); }
  bool binary(binary_t& v) override { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (++fields_ > kMaxJsonFields)
      return fail("more than " + std::to_string(kMaxJsonFields) +
                  " object fields; allowed: at most " + std::to_string(kMaxJsonFields));
    Frame& top = stack_.back();
    top.key = k;
    top.has_key = true;
    if (top.node->contains(k)) return fail("duplicate field; allowed: each field once");
    return true;
  }
  bool parse_error(std::size_t, const std::string& token,
                   const nlohmann::detail::exception& e) override {
    if (e.id == 406)  // out_of_range: a number that does not fit a double
      return fail("the number " + shown(token) +
                  " is out of range; allowed: a finite number (magnitude below 1.8e308)");
    // nlohmann's message quotes the last token read, which can be the rest of the file.
    error_ = std::string("not valid JSON") + (stack_.empty() ? "" : " (at " + shown(path()) + ")") +
             ": " + shown(e.what(), 300);
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  struct Frame {
    json* node;
    std::string key;       // objects: the key of the value being parsed...
    bool has_key = false;  // ...once there is one
    size_t index = 0;      // arrays: the index of the value being parsed
  };

  std::string path() const {
    std::string out;
    for (const Frame& f : stack_) {
      if (f.node->is_array())
        out += "/" + std::to_string(f.index);
      else if (f.has_key)
        out += "/" + escape_key(f.key);
    }
    return out.empty() ? "/" : out;
  }

  bool fail(const std::string& what) {
    error_ = shown(path()) + ": " + what;
    return false;
  }

  // Places a value in its parent (or as the root); returns where it now lives.
  json* place(json&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *stack_.back().node;
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    json& slot = parent[stack_.back().key];
    slot = std::move(value);
    return &slot;
  }

  // A value is complete: the enclosing array moves on to its next index.
  void completed() {
    if (!stack_.empty() && stack_.back().node->is_array()) ++stack_.back().index;
  }

  bool add(json&& value) {
    place(std::move(value));
    completed();
    return true;
  }

  bool open(json&& container) {
    if (static_cast<int>(stack_.size()) >= kMaxJsonDepth)
      return fail("nested deeper than " + std::to_string(kMaxJsonDepth) +
                  " levels; allowed: at most " + std::to_string(kMaxJsonDepth));
    if (++containers_ > kMaxJsonContainers)
      return fail("more than " + std::to_string(kMaxJsonContainers) +
                  " objects and arrays; allowed: at most " + std::to_string(kMaxJsonContainers));
    json* node = place(std::move(container));
    stack_.push_back({node, "", false, 0});
    return true;
  }

  bool close() {
    stack_.pop_back();
    completed();
    return true;
  }

  json& root_;
  std::vector<Frame> stack_;
  size_t containers_ = 0, fields_ = 0;
  std::string error_;
};
}  // namespace

void release_json(json& document) noexcept {
  if (document.is_array()) {
    auto& items = document.get_ref<json::array_t&>();
    for (json& item : items) release_json(item);
    items.clear();  // each item is now a scalar or empty: nothing allocates
  } else if (document.is_object()) {
    auto& fields = document.get_ref<json::object_t&>();
    for (auto& field : fields) release_json(field.second);
    fields.clear();
  }
}

json parse_json_text(const std::string& text, const std::string& source) {
  // The parser takes a NUL byte for the end of the input: whatever follows it would be ignored.
  if (const size_t nul = text.find('\0'); nul != std::string::npos)
    throw ConfigError(shown(source) + ": byte " + std::to_string(nul) +
                      " is a NUL byte; allowed: JSON text, which has none");
  json document;
  PathTrackingBuilder builder(document);
  bool parsed = false;
  try {
    parsed = json::sax_parse(text, &builder);
  } catch (const std::bad_alloc&) {
    release_json(document);  // the part built so far, without allocating
    throw;
  }
  if (!parsed) {
    release_json(document);
    throw ConfigError(shown(source) + ": " + builder.error());
  }
  return document;
}

}  // namespace normbench
