// The test-only helper of tests/python/test_backward_reference.py: for every problem of a config,
// its inputs (trial 0) and its float64 reference as .npy files, made by normbench's own input
// generator and reference, with no GPU:
//   reference_dump CONFIG DIR  ->  DIR/<problem id>/{x,dy,weight,...}.npy, reference*.npy
#include <cstdio>
#include <exception>

#include "app/config/config.hpp"
#include "app/inputs/inputs.hpp"
#include "app/results/tensor_dump.hpp"
#include "reference/normalization_reference.hpp"

int main(int argc, char** argv) {
  using namespace normbench;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CONFIG DIR\n", argv[0]);
    return 2;
  }
  try {
    const RunConfig config = load_config_file(argv[1]);
    for (const ProblemConfig& problem : config.problems) {
      const ProblemInputs inputs = make_inputs(problem, problem.seed, 2);
      auto data = [&](Input input) {
        const HostTensor& t = inputs[input];
        return t.size > 0 ? t.begin() : nullptr;
      };
      const NormalizationReference reference(
          problem.shape,
          {data(Input::x), data(Input::residual), data(Input::weight), data(Input::bias),
           data(Input::dy), data(Input::ds_out)},
          2);
      const std::string dir = std::string(argv[2]) + "/" + problem.id;
      save_inputs(dir, inputs);
      save_reference(dir, reference, 2);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reference_dump: %s\n", e.what());
    return 1;
  }
  return 0;
}
