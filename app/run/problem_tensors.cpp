#include "app/run/problem_tensors.hpp"

#include <cstring>

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
  const bool copies = !data_format(problem).is_identity();
  const auto floats = static_cast<size_t>(problem.num_elements) * sizeof(float);
  // The inputs and the fresh inputs, two outputs' slots (y, sample) and, when they are not
  // views, their floats; the reference's rounded sum for add_rms_norm.
  const size_t tensors = problem.has_residual() ? 2 : 1;
  size_t bytes = shared_layout(problem).end;
  if (copies) bytes += floats * tensors * 4;
  if (problem.has_residual()) bytes += floats;
  return bytes;
}

ProblemTensors::ProblemTensors(const ProblemShape& problem, char* shared)
    : problem_(problem),
      shared_(shared),
      data_(data_format(problem)),
      params_(param_format(problem)) {
  const SharedLayout l = shared_layout(problem);
  const std::vector<int64_t> params = param_shape(problem);
  Binding x = bind(problem.shape, l.x, data_);
  inputs_.x = std::move(x.values);
  x_slot_ = x.slot;
  if (problem.has_residual()) {
    Binding r = bind(problem.shape, l.residual, data_);
    inputs_.residual = std::move(r.values);
    residual_slot_ = r.slot;
  }
  if (problem.affine) {
    Binding w = bind(params, l.weight, params_);
    inputs_.weight = std::move(w.values);
    weight_slot_ = w.slot;
  }
  if (problem.has_bias) {
    Binding b = bind(params, l.bias, params_);
    inputs_.bias = std::move(b.values);
    bias_slot_ = b.slot;
  }
  y_ = bind(problem.shape, l.y, data_);
  sample_y_ = bind(problem.shape, l.sample_y, data_);
  if (problem.has_residual()) {
    sum_ = bind(problem.shape, l.sum, data_);
    sample_sum_ = bind(problem.shape, l.sample_sum, data_);
  }
  // Their floats are allocated when first decoded: most problems never need them.
  auto lazily = [&](const SharedSlot& slot, TensorFormat format) {
    Binding b;
    b.slot = shared_ + slot.offset;
    b.format = format;
    return b;
  };
  fresh_x_ = lazily(l.fresh_x, data_);
  if (problem.has_residual()) fresh_residual_ = lazily(l.fresh_residual, data_);
  if (problem.affine) fresh_weight_ = lazily(l.fresh_weight, params_);
  if (problem.has_bias) fresh_bias_ = lazily(l.fresh_bias, params_);
}

ProblemTensors::Binding ProblemTensors::bind(const std::vector<int64_t>& shape,
                                             const SharedSlot& slot, TensorFormat format) {
  Binding b;
  b.slot = shared_ + slot.offset;
  b.format = format;
  // The slot itself where the bytes are the floats; else floats of our own (allocated once,
  // so that fill_inputs and every trial reuse them).
  b.values = format.is_identity() ? HostTensor(shape, reinterpret_cast<float*>(b.slot))
                                  : HostTensor(shape);
  return b;
}

ReferenceInputs ProblemTensors::reference_inputs() const {
  auto data = [](const HostTensor& t) { return t.size > 0 ? t.begin() : nullptr; };
  return {data(inputs_.x), data(inputs_.residual), data(inputs_.weight), data(inputs_.bias)};
}

void ProblemTensors::encode_inputs(int threads) {
  encode_tensor(inputs_.x, data_, x_slot_, threads);
  if (residual_slot_) encode_tensor(inputs_.residual, data_, residual_slot_, threads);
  if (weight_slot_) encode_tensor(inputs_.weight, params_, weight_slot_, threads);
  if (bias_slot_) encode_tensor(inputs_.bias, params_, bias_slot_, threads);
}

void ProblemTensors::keep_inputs_as_fresh(int threads) {
  const SharedLayout l = shared_layout(problem_);
  const std::pair<const SharedSlot*, const SharedSlot*> pairs[] = {{&l.x, &l.fresh_x},
                                                                   {&l.residual, &l.fresh_residual},
                                                                   {&l.weight, &l.fresh_weight},
                                                                   {&l.bias, &l.fresh_bias}};
  for (const auto& [from, to] : pairs)
    parallel_copy(shared_ + from->offset, shared_ + to->offset, from->bytes, threads);
}

ReferenceInputs ProblemTensors::fresh_reference_inputs(int threads) {
  const std::vector<int64_t> params = param_shape(problem_);
  auto decode = [&](Binding& b, const std::vector<int64_t>& shape) -> const float* {
    if (!b.slot) return nullptr;  // the problem has no such tensor
    if (b.format.is_identity()) return reinterpret_cast<const float*>(b.slot);
    if (b.values.size == 0) b.values = HostTensor(shape);
    decode_tensor(b.slot, b.format, b.values, threads);
    return b.values.begin();
  };
  return {decode(fresh_x_, problem_.shape), decode(fresh_residual_, problem_.shape),
          decode(fresh_weight_, params), decode(fresh_bias_, params)};
}

OutputValues ProblemTensors::decode_outputs(Slots slots, int threads) {
  Binding& y = slots == Slots::launch ? y_ : sample_y_;
  Binding& sum = slots == Slots::launch ? sum_ : sample_sum_;
  decode_tensor(y.slot, y.format, y.values, threads);
  OutputValues out{y.values.begin(), nullptr};
  if (problem_.has_residual()) {
    decode_tensor(sum.slot, sum.format, sum.values, threads);
    out.sum = sum.values.begin();
  }
  return out;
}

const HostTensor& ProblemTensors::output(Output output, Slots slots) const {
  if (output == Output::sum) return slots == Slots::launch ? sum_.values : sample_sum_.values;
  return slots == Slots::launch ? y_.values : sample_y_.values;
}

}  // namespace normbench
