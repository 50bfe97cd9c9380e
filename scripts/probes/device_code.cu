// What the CUDA runtime says where a binary holds no device code for the GPU it runs on: the
// error `normbench run` turns into "this build has no device code for ..." (open_device). Build
// it twice and run both on the GPU:
//   nvcc -O2 -arch=sm_90 -o device_code_90 scripts/probes/device_code.cu
//   nvcc -O2 -arch=sm_100 -o device_code_100 scripts/probes/device_code.cu
// (checks/front-door/second-campaign built it with -gencode arch=compute_100,code=sm_100; either
// way it holds no code an H100 can run.)
// On an H100 the first prints "no error" throughout, the second 209 (no kernel image) for
// cudaFuncGetAttributes, which cudaGetLastError then returns once, and for a launch.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void empty_kernel() {}

int main() {
  cudaFuncAttributes attributes{};
  cudaError_t e = cudaFuncGetAttributes(&attributes, empty_kernel);
  std::printf("cudaFuncGetAttributes: %d %s\n", static_cast<int>(e), cudaGetErrorString(e));
  std::printf("cudaGetLastError after: %d\n", static_cast<int>(cudaGetLastError()));
  empty_kernel<<<1, 1>>>();
  e = cudaGetLastError();
  std::printf("launch: %d %s\n", static_cast<int>(e), cudaGetErrorString(e));
  return 0;
}
