// The device the kernel-planning tests plan for, without a GPU: an H100 80GB HBM3 as
// cudaGetDeviceProperties reports it.
#pragma once

#include "kernels/registry.hpp"

namespace normbench::testing {

inline DeviceCaps described_h100() {
  DeviceCaps caps;
  caps.sm_count = 132;
  caps.compute_capability_major = 9;
  caps.shared_memory_per_block_optin = 232448;
  caps.shared_memory_per_sm = 233472;
  caps.max_threads_per_sm = 2048;
  caps.cooperative_launch = true;
  return caps;
}

}  // namespace normbench::testing
