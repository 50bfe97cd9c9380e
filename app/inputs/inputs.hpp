// Reproducible inputs. Element i of a tensor is a pure function of (seed, tensor name, i):
// a SplitMix64 counter-based generator, so the values are the same for any thread count and
// any chunking, and can be regenerated elsewhere. i is the logical index (row-major over the shape,
// NCHW for GroupNorm whatever the layout), and a bfloat16/float16 tensor holds the float value
// rounded to its type (ties to even, as torch's .to()). A backward op's mean and rstd are no
// draw: they are the statistics of x, computed in float64 and rounded once to float32.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/inputs/host_tensor.hpp"
#include "kernels/tensor_roles.hpp"

namespace normbench {

// Floats in the logical order; empty where the problem has none (kernels/tensor_roles.hpp).
struct ProblemInputs {
  HostTensor x;
  HostTensor residual;  // add_rms_norm
  HostTensor weight;    // affine
  HostTensor bias;      // has_bias, forward ops
  HostTensor dy;        // backward ops
  HostTensor ds_out;    // add_rms_norm_backward
  HostTensor mean;      // layer_norm_backward, group_norm_backward
  HostTensor rstd;      // backward ops

  HostTensor& operator[](Input input);
  const HostTensor& operator[](Input input) const;

 private:
  template <class Inputs>
  static auto& of(Inputs& inputs, Input input);  // the member for `input`, const or not
};

// The 64-bit stream key of one tensor for one trial's seed.
uint64_t tensor_stream_key(uint64_t seed, const std::string& tensor_name);

// Fills out[0, n) with elements [first, first + n) of the stream `key` drawn from `dist`.
void generate(const Distribution& dist, uint64_t key, int64_t first, int64_t n, float* out);

// Fills a whole tensor in parallel on `threads` threads.
void generate_tensor(const Distribution& dist, uint64_t key, HostTensor& tensor, int threads);

// Fills `inputs` with the inputs of `problem` for `seed` (the config's seed plus the trial
// index), allocating only when the buffers are missing (trials reuse them, and a caller may
// hand in views of memory it owns).
void fill_inputs(const ProblemConfig& problem, uint64_t seed, ProblemInputs& inputs, int threads);
ProblemInputs make_inputs(const ProblemConfig& problem, uint64_t seed, int threads);

}  // namespace normbench
