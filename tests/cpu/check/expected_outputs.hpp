// Every expected value of one output of a reference, walked piece by piece as the verifier
// does: the reference tests compare whole tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/normalization_reference.hpp"

namespace normbench::testing {

inline std::vector<double> expected_all(const NormalizationReference& r,
                                        Output output = Output::y) {
  const ProblemShape& p = r.problem();
  std::vector<double> out(static_cast<size_t>(tensor_elements(p, tensor_kind(output))));
  for (int64_t piece = 0; piece < r.num_pieces(output); ++piece) {
    const int64_t begin = r.piece_begin(output, piece);
    r.expected(output, begin, r.piece_end(output, piece) - begin, out.data() + begin);
  }
  return out;
}

// The sums of the terms' magnitudes of a sum output (dweight, dbias), every element.
inline std::vector<double> magnitudes_all(const NormalizationReference& r, Output output) {
  std::vector<double> out(static_cast<size_t>(r.problem().param_size));
  for (int64_t piece = 0; piece < r.num_pieces(output); ++piece) {
    const int64_t begin = r.piece_begin(output, piece);
    r.term_magnitudes(output, begin, r.piece_end(output, piece) - begin, out.data() + begin);
  }
  return out;
}

}  // namespace normbench::testing
