// The harness's tensors of one problem, over the memory shared with the worker
// (app/worker/shared_tensors.hpp): the inputs as floats in the logical order, which the
// reference reads and which are encoded into the shared slots for the worker to upload, and a
// launch's outputs decoded from their slots into floats for verification. Where a tensor's
// device format is float32 in the logical order (the classic problems: B's x alone is 7.5 GB),
// the floats are the shared slot itself and nothing is copied either way.
#pragma once

#include "app/check/verify.hpp"
#include "app/config/config.hpp"
#include "app/inputs/inputs.hpp"
#include "app/worker/shared_tensors.hpp"

namespace normbench {

// Host memory a problem needs: the shared slots and the floats kept beside them.
size_t host_bytes_needed(const ProblemShape& problem);

class ProblemTensors {
 public:
  ProblemTensors(const ProblemShape& problem, char* shared);

  // Generate into these (fill_inputs), then encode_inputs().
  ProblemInputs& inputs() { return inputs_; }
  ReferenceInputs reference_inputs() const;
  // Writes the inputs into their shared slots in the device format (nothing to do for views).
  void encode_inputs(int threads);
  // Copies the inputs' shared slots to the fresh inputs' (app/worker/shared_tensors.hpp), before
  // the next inputs are generated.
  void keep_inputs_as_fresh(int threads);
  // The fresh inputs as floats in the logical order, for their reference (decoded once per call;
  // views of the slots where those are floats).
  ReferenceInputs fresh_reference_inputs(int threads);

  // Writes the interval every output element must lie in (app/check/tolerance_bounds.hpp) into
  // the bounds' slots, in the outputs' layouts; false, writing nothing, where the host memory
  // it needs is not available.
  bool encode_bounds(const NormalizationReference& reference, const OutputTolerances& tolerances,
                     int threads);

  // The outputs the worker copied to the checked launch's slots, or to the timed sample's.
  enum class Slots { launch, sample };
  OutputValues decode_outputs(Slots slots, int threads);
  // One decoded output (after decode_outputs), for tensor dumps.
  const HostTensor& output(Output output, Slots slots) const;

 private:
  // A float tensor in the logical order and the shared slot it is encoded into.
  struct Binding {
    HostTensor values;
    char* slot = nullptr;
    TensorFormat format;
  };
  Binding bind(TensorKind kind, const SharedSlot& slot);
  Binding& binding(Output output, Slots slots);

  ProblemShape problem_;
  char* shared_;
  ProblemInputs inputs_;
  std::array<char*, kInputCount> input_slots_{};  // null where the problem has no such input
  std::array<Binding, kOutputCount> outputs_, samples_;
  std::array<Binding, kInputCount> fresh_;
};

}  // namespace normbench
