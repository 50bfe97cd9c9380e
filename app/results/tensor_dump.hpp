// --save-tensors: a problem's inputs, each kernel's output and the reference as .npy files,
// so that anyone can cross-check with NumPy or PyTorch. Layout:
//   DIR/<problem id>/trial<k>/{x,weight,bias}.npy   inputs (float32)
//   DIR/<problem id>/trial<k>/reference.npy          expected output (float64)
//   DIR/<problem id>/trial<k>/<kernel id>.npy        a kernel's output (float32)
#pragma once

#include <string>

#include "app/inputs/inputs.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

std::string trial_dump_dir(const std::string& root, const std::string& problem_id, int trial);
void save_inputs(const std::string& dir, const ProblemInputs& inputs);
void save_output(const std::string& dir, const std::string& kernel_id, const HostTensor& y);
void save_reference(const std::string& dir, const NormalizationReference& reference, int threads);

}  // namespace normbench
