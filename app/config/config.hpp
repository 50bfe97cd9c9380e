// A normbench config: named problems, each a normalization op on a shape, with the settings
// (dtype, tolerance, input distributions, seed, trials, timing) that say how to check and time
// kernels on it. The format is documented in README.md and configs/normbench.schema.json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/config/distribution.hpp"
#include "kernels/problem_shape.hpp"

namespace normbench {

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-5;
};

// The default tolerance of an output dtype: 1e-5 for float32; for bfloat16 and float16, in unit
// roundoffs u of the dtype (2^-8, 2^-11), rtol = 2u and atol = 4u. An output rounded once is
// within u|y| of the value it rounds, and PyTorch's composite ops round twice (RMSNorm rounds
// x*rrms, then the product with the weight): rtol 2u. PyTorch's GroupNorm keeps the mean and
// rstd in the data's type, so its y errs by u|y - bias| on top: where the bias cancels most of
// y that is up to u|bias| more than rtol allows (measured: eager failed 2u on the diffusion
// config by 2.0-2.5u, always at small y in channels of large bias). atol 4u covers biases up to
// 4 in magnitude (the configs draw them from N(0,1)). A kernel that accumulates a long row's
// statistics in bfloat16 still misses it by far (tests/adversarial).
Tolerance default_tolerance(DType dtype);

// A problem's tolerance per output: `data` for the outputs of x's dtype (y, s, dx), `params`
// for those of param_dtype (dweight, dbias), which are sums and get an allowance for their
// float32 accumulation besides (app/check/sum_tolerance.hpp). Each is its dtype's default
// unless the config sets rtol or atol, which then hold for every output.
struct OutputTolerances {
  Tolerance data;
  Tolerance params;
  // Implicit: where one tolerance is given, it holds for every output.
  OutputTolerances(const Tolerance& both) : data(both), params(both) {}
  OutputTolerances(const Tolerance& data_outputs, const Tolerance& param_outputs)
      : data(data_outputs), params(param_outputs) {}
};

struct TimingSettings {
  int warmup = 5;            // launches before the first sample
  int min_samples = 10;      // never fewer samples than this
  double max_noise = 0.005;  // stop once the median's 95% interval is within +-this of it...
  double max_time_s = 5.0;   // ...or once this much time was spent sampling
  bool flush_l2 = true;      // evict L2 before each sample
  // The longest the harness waits for one launch of a kernel (or one timed sample, with its
  // checks) before it kills the worker and records the kernel as hung.
  double kernel_timeout_s = 60.0;
};

struct ProblemConfig {
  std::string id;
  std::string description;
  ProblemShape shape;         // with dtype, param_dtype and layout
  Tolerance tolerance;        // of the outputs of dtype
  Tolerance param_tolerance;  // of the outputs of param_dtype (dweight, dbias)
  // "x"; "residual" (add_rms_norm); "weight" (affine); "bias" (has_bias, forward ops); "dy"
  // (backward ops); "ds_out" (add_rms_norm_backward)
  std::map<std::string, Distribution> inputs;
  uint64_t seed = 42;
  int trials = 3;
  TimingSettings timing;
  nlohmann::json resolved;  // this problem with every default filled in, for the report

  OutputTolerances tolerances() const { return {tolerance, param_tolerance}; }
};

struct RunConfig {
  std::string name;
  std::string description;
  std::string source;  // file path, or "<built-in kernelbench>"
  std::vector<ProblemConfig> problems;
  nlohmann::json resolved;  // the whole config with defaults applied to every problem
  std::string hash;         // of `resolved`: reports from equal configs have equal hashes
  // Plugin files to load ("plugins"), relative paths taken from the config file's folder.
  // Not part of `resolved`: they choose kernels, not problems.
  std::vector<std::string> plugins;
};

// The largest config file read: the shipped ones are a few KB; a config of thousands of problems
// stays far below. A bound, so that /dev/zero or a wrong file is refused, not read into memory.
inline constexpr size_t kMaxConfigBytes = size_t{16} << 20;

// The most problems a config makes, sweeps' points included: the shipped ones make at most 120.
// A bound, so that a small file of sweeps cannot ask for gigabytes of host memory (some 30 KB a
// problem before it runs) or days of GPU time; a larger study is several configs.
inline constexpr size_t kMaxProblems = 4096;

// Parses and validates a config. `source` names it in error messages. Throws ConfigError
// naming the source, the JSON path and what is allowed.
RunConfig parse_config(const std::string& text, const std::string& source);
RunConfig load_config_file(const std::string& path);

// The three core problems at full size (configs/kernelbench.json, built into the binary).
RunConfig builtin_config();

}  // namespace normbench
