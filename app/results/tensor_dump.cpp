#include "app/results/tensor_dump.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "app/util/atomic_file.hpp"
#include "app/util/errors.hpp"
#include "app/util/npy.hpp"
#include "app/util/shown_text.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace fs = std::filesystem;

std::string trial_dump_dir(const std::string& root, const std::string& problem_id, int trial) {
  return root + "/" + problem_id + "/trial" + std::to_string(trial);
}

void save_inputs(const std::string& dir, const ProblemInputs& inputs) {
  for (Input input : kAllInputs)
    if (const HostTensor& t = inputs[input]; t.size > 0)
      write_npy(dir + "/" + input_name(input) + ".npy", t.begin(), t.shape);
}

std::string output_file_stem(const std::string& kernel_id, Output output) {
  return output == Output::y ? kernel_id : kernel_id + "." + output_name(output);
}

void save_output(const std::string& dir, const std::string& stem, const HostTensor& values) {
  write_npy(dir + "/" + stem + ".npy", values.begin(), values.shape);
}

namespace {
void save_expected(const std::string& path, const NormalizationReference& reference, Output output,
                   int threads) {
  const ProblemShape& problem = reference.problem();
  NpyWriter writer(path, NpyType::float64, tensor_shape(problem, tensor_kind(output)));
  // Computed and written a slab of about 2^26 elements at a time: the full float64 reference of
  // B is 15 GB.
  const int64_t pieces = reference.num_pieces(output);
  const int64_t pieces_per_slab =
      std::max<int64_t>(1, (int64_t{1} << 26) / reference.max_piece_elements(output));
  std::vector<double> slab;
  for (int64_t first = 0; first < pieces; first += pieces_per_slab) {
    const int64_t last = std::min(pieces, first + pieces_per_slab);
    const int64_t base = reference.piece_begin(output, first);
    slab.resize(static_cast<size_t>(reference.piece_end(output, last - 1) - base));
    parallel_for_chunks(
        last - first, reference.pieces_per_chunk(output),
        [&](int64_t, int64_t chunk_first, int64_t chunk_last) {
          for (int64_t p = first + chunk_first; p < first + chunk_last; ++p) {
            const int64_t begin = reference.piece_begin(output, p);
            reference.expected(output, begin, reference.piece_end(output, p) - begin,
                               slab.data() + (begin - base));
          }
        },
        threads);
    writer.append(slab.data(), slab.size() * sizeof(double));
  }
  writer.commit();
}
}  // namespace

void save_reference(const std::string& dir, const NormalizationReference& reference, int threads) {
  for (Output output : problem_outputs(reference.problem()))
    save_expected(dir + "/" + output_file_stem("reference", output) + ".npy", reference, output,
                  threads);
}

void check_tensor_root(const std::string& root, const std::string& report) {
  const std::string option = "--save-tensors " + shown(root);
  // The tensors' files would make the report's path a folder, or the report a file where their
  // folders go: either way the report, written last, would be lost after the whole run.
  std::error_code ec;
  const fs::path folder = resolved_path(root, ec);
  const fs::path file = ec ? fs::path() : resolved_path(report, ec);
  if (!ec) {
    const auto contains = [](const fs::path& outer, const fs::path& inner) {
      return std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first ==
             outer.end();
    };
    if (contains(folder, file) || contains(file, folder))
      throw UsageError(option + ": holds the report " + shown(report) +
                       " or lies inside it; allowed: a folder apart from the report's path");
  }
  struct stat st {};
  if (::stat(root.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw UsageError(option + ": is not a directory; allowed: a folder, or a path to create one");
  try {
    check_writable(root + "/.normbench-write-check");  // leaves no file and no folder
  } catch (const UsageError& e) {
    throw UsageError(option + ": cannot write there (" + e.what() +
                     "); allowed: a writable folder");
  }
}

void save_or_record(std::string& error, const std::function<void()>& write) {
  try {
    write();
  } catch (const UsageError& e) {  // a path refused
    if (error.empty()) error = e.what();
  } catch (const OutputError& e) {  // a full disk
    if (error.empty()) error = e.what();
  }
}

}  // namespace normbench
