// Reproducible inputs. Element i of a tensor is a pure function of (seed, tensor name, i):
// a SplitMix64 counter-based generator, so the values are the same for any thread count and
// any chunking, and can be regenerated elsewhere (python/normbench_torch does, in NumPy and
// PyTorch).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/inputs/host_tensor.hpp"

namespace normbench {

struct ProblemInputs {
  HostTensor x;
  HostTensor weight;  // empty when !affine
  HostTensor bias;
};

// The shape of weight and of bias: per channel (GroupNorm) or normalized_shape (LayerNorm).
std::vector<int64_t> param_shape(const ProblemShape& problem);

// The 64-bit stream key of one tensor for one trial's seed.
uint64_t tensor_stream_key(uint64_t seed, const std::string& tensor_name);

// Fills out[0, n) with elements [first, first + n) of the stream `key` drawn from `dist`.
void generate(const Distribution& dist, uint64_t key, int64_t first, int64_t n, float* out);

// Fills a whole tensor in parallel on `threads` threads.
void generate_tensor(const Distribution& dist, uint64_t key, HostTensor& tensor, int threads);

// Fills `inputs` with the inputs of `problem` for `seed` (the config's seed plus the trial
// index), allocating only when the buffers are missing: trials reuse them.
void fill_inputs(const ProblemConfig& problem, uint64_t seed, ProblemInputs& inputs, int threads);
ProblemInputs make_inputs(const ProblemConfig& problem, uint64_t seed, int threads);

}  // namespace normbench
