#include "app/run/problem_tensors.hpp"

#include <algorithm>
#include <cstring>

#include "app/check/tolerance_bounds.hpp"
#include "app/util/host_memory.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
void parallel_copy(const char* from, char* to, size_t bytes, int threads) {
  constexpr int64_t kChunk = 64 << 20;
  parallel_for_chunks(
      static_cast<int64_t>(bytes), kChunk,
      [&](int64_t, int64_t begin, int64_t end) {
        std::memcpy(to + begin, from + begin, static_cast<size_t>(end - begin));
      },
      threads);
}
}  // namespace

size_t host_bytes_needed(const ProblemShape& problem) {
  // The shared slots; the floats beside the slots that are not views: of the inputs and the
  // fresh inputs, of the launch's and the sample's outputs; the reference's rounded sum for
  // add_rms_norm and a backward op's sums (four doubles a parameter).
  // The bounds' slots are not counted: a run writes them only for a kernel that is not bitwise
  // deterministic, and checks then that they fit (ProblemTensors::encode_bounds).
  size_t bytes = shared_layout(problem).bounds_begin;
  auto floats = [&](TensorKind kind) -> size_t {
    if (tensor_format(problem, kind).is_identity()) return 0;
    return static_cast<size_t>(tensor_elements(problem, kind)) * sizeof(float);
  };
  for (Input input : problem_inputs(problem)) bytes += 2 * floats(tensor_kind(input));
  for (Output output : problem_outputs(problem)) bytes += 2 * floats(tensor_kind(output));
  if (problem.has_residual()) bytes += static_cast<size_t>(problem.num_elements) * sizeof(float);
  if (problem.is_backward()) bytes += static_cast<size_t>(problem.param_size) * 4 * sizeof(double);
  return bytes;
}

ProblemTensors::ProblemTensors(const ProblemShape& problem, char* shared)
    : problem_(problem), shared_(shared) {
  const SharedLayout l = shared_layout(problem);
  for (Input input : problem_inputs(problem)) {
    Binding b = bind(tensor_kind(input), l.input(input));
    inputs_[input] = std::move(b.values);
    input_slots_[static_cast<size_t>(input)] = b.slot;
    // The fresh inputs' floats are allocated when first decoded: most problems never need them.
    Binding& fresh = fresh_[static_cast<size_t>(input)];
    fresh.slot = shared_ + l.fresh_input(input).offset;
    fresh.format = tensor_format(problem, tensor_kind(input));
  }
  for (Output output : problem_outputs(problem)) {
    outputs_[static_cast<size_t>(output)] = bind(tensor_kind(output), l.output(output));
    samples_[static_cast<size_t>(output)] = bind(tensor_kind(output), l.sample(output));
  }
}

ProblemTensors::Binding ProblemTensors::bind(TensorKind kind, const SharedSlot& slot) {
  Binding b;
  b.slot = shared_ + slot.offset;
  b.format = tensor_format(problem_, kind);
  const std::vector<int64_t> shape = tensor_shape(problem_, kind);
  // The slot itself where the bytes are the floats; else floats of our own (allocated once,
  // so that fill_inputs and every trial reuse them).
  b.values = b.format.is_identity() ? HostTensor(shape, reinterpret_cast<float*>(b.slot))
                                    : HostTensor(shape);
  return b;
}

ProblemTensors::Binding& ProblemTensors::binding(Output output, Slots slots) {
  return (slots == Slots::launch ? outputs_ : samples_)[static_cast<size_t>(output)];
}

ReferenceInputs ProblemTensors::reference_inputs() const {
  auto data = [&](Input input) -> const float* {
    const HostTensor& t = inputs_[input];
    return t.size > 0 ? t.begin() : nullptr;
  };
  return {data(Input::x),    data(Input::residual), data(Input::weight),
          data(Input::bias), data(Input::dy),       data(Input::ds_out)};
}

void ProblemTensors::encode_inputs(int threads) {
  for (Input input : problem_inputs(problem_))
    encode_tensor(inputs_[input], tensor_format(problem_, tensor_kind(input)),
                  input_slots_[static_cast<size_t>(input)], threads);
}

void ProblemTensors::keep_inputs_as_fresh(int threads) {
  const SharedLayout l = shared_layout(problem_);
  for (Input input : problem_inputs(problem_))
    parallel_copy(shared_ + l.input(input).offset, shared_ + l.fresh_input(input).offset,
                  l.input(input).bytes, threads);
}

ReferenceInputs ProblemTensors::fresh_reference_inputs(int threads) {
  const std::vector<Input> present = problem_inputs(problem_);
  auto decode = [&](Input input) -> const float* {
    if (std::find(present.begin(), present.end(), input) == present.end()) return nullptr;
    Binding& b = fresh_[static_cast<size_t>(input)];
    if (b.format.is_identity()) return reinterpret_cast<const float*>(b.slot);
    if (b.values.size == 0) b.values = HostTensor(tensor_shape(problem_, tensor_kind(input)));
    decode_tensor(b.slot, b.format, b.values, threads);
    return b.values.begin();
  };
  return {decode(Input::x),    decode(Input::residual), decode(Input::weight),
          decode(Input::bias), decode(Input::dy),       decode(Input::ds_out)};
}

bool ProblemTensors::encode_bounds(const NormalizationReference& reference,
                                   const OutputTolerances& tolerances, int threads) {
  const SharedLayout l = shared_layout(problem_);
  const std::vector<Output> outputs = problem_outputs(problem_);
  // The slots, and floats in the logical order beside those that are not (channels-last).
  size_t needed = l.end - l.bounds_begin;
  for (Output output : outputs)
    if (!bounds_format(problem_, output).is_identity())
      needed +=
          2 * static_cast<size_t>(tensor_elements(problem_, tensor_kind(output))) * sizeof(float);
  const auto available = available_host_memory();
  if (available && needed > *available) return false;
  for (Output output : outputs) {
    const TensorFormat format = bounds_format(problem_, output);
    const std::vector<int64_t> shape = tensor_shape(problem_, tensor_kind(output));
    char* lower_slot = shared_ + l.lower_bound(output).offset;
    char* upper_slot = shared_ + l.upper_bound(output).offset;
    if (format.is_identity()) {
      tolerance_bounds(reference, output, tolerances, reinterpret_cast<float*>(lower_slot),
                       reinterpret_cast<float*>(upper_slot), threads);
      continue;
    }
    HostTensor lower(shape), upper(shape);
    tolerance_bounds(reference, output, tolerances, lower.begin(), upper.begin(), threads);
    encode_tensor(lower, format, lower_slot, threads);
    encode_tensor(upper, format, upper_slot, threads);
  }
  return true;
}

OutputValues ProblemTensors::decode_outputs(Slots slots, int threads) {
  OutputValues out;
  for (Output output : problem_outputs(problem_)) {
    Binding& b = binding(output, slots);
    decode_tensor(b.slot, b.format, b.values, threads);
    out[output] = b.values.begin();
  }
  return out;
}

const HostTensor& ProblemTensors::output(Output output, Slots slots) const {
  return (slots == Slots::launch ? outputs_ : samples_)[static_cast<size_t>(output)].values;
}

}  // namespace normbench
