// Every expected value of one output of a reference, walked piece by piece as the verifier
// does: the reference tests compare whole tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/normalization_reference.hpp"

namespace normbench::testing {

inline std::vector<double> expected_all(const NormalizationReference& r,
                                        Output output = Output::y) {
  std::vector<double> out(static_cast<size_t>(r.problem().num_elements));
  for (int64_t p = 0; p < r.num_pieces(); ++p) {
    const int64_t begin = r.piece_begin(p);
    r.expected(output, begin, r.piece_end(p) - begin, out.data() + begin);
  }
  return out;
}

}  // namespace normbench::testing
