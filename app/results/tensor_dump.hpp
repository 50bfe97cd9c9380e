// --save-tensors: a problem's inputs, each kernel's outputs and the reference as .npy files,
// so that anyone can cross-check with NumPy or PyTorch. Every tensor is in the logical order
// (NCHW for GroupNorm, whatever the layout) and bfloat16/float16 values are written as the
// float32 numbers they are exactly. Layout:
//   DIR/<problem id>/trial<k>/<input>.npy                     inputs (float32), those it has:
//                                                             x, residual, weight, bias, dy,
//                                                             mean, rstd
//   DIR/<problem id>/trial<k>/reference.npy                   expected y (float64)
//   DIR/<problem id>/trial<k>/<kernel id>.npy                 a kernel's y (float32)
// and for every other output (s of add_rms_norm; dx, dweight, dbias of a backward op)
// reference.<output>.npy and <kernel id>.<output>.npy.
#pragma once

#include <functional>
#include <string>

#include "app/inputs/inputs.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

std::string trial_dump_dir(const std::string& root, const std::string& problem_id, int trial);
void save_inputs(const std::string& dir, const ProblemInputs& inputs);
// "<kernel id>" for y, "<kernel id>.<output>" for the others ("<kernel id>.s").
std::string output_file_stem(const std::string& kernel_id, Output output);
void save_output(const std::string& dir, const std::string& stem, const HostTensor& values);
// reference.npy (y) or reference.<output>.npy, for every output of the problem.
void save_reference(const std::string& dir, const NormalizationReference& reference, int threads);

// Throws UsageError (exit 2) naming --save-tensors unless `root` is, or can be made, a folder
// that files can be written to, apart from the path of the run's `report` (neither inside the
// other); checked before the run, not after its GPU work.
void check_tensor_root(const std::string& root, const std::string& report);

// Runs `write` (save_* calls). A file that cannot be written (a full disk, a folder removed
// meanwhile) is recorded in `error`, the first one kept, rather than thrown: the tensors are a
// by-product, and the run's report must still be written.
void save_or_record(std::string& error, const std::function<void()>& write);

}  // namespace normbench
