// Non-cryptographic hashes used to fingerprint configs and host buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace normbench {

inline uint64_t fnv1a64(const void* data, size_t size, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

inline std::string hex64(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<size_t>(i)] = digits[v & 0xf];
  return out;
}

inline std::string fnv1a64_hex(std::string_view text) {
  return hex64(fnv1a64(text.data(), text.size()));
}

// SplitMix64's finaliser: a bijective mix of 64 bits, the core of the counter-based generator
// in inputs.cpp and of the device-side input hash.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace normbench
