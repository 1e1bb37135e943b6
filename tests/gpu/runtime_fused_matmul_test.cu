// coalesce_fused_matmul (compiler/runtime/) on the GPU for every registered family and every dtype
// it computes: the first built-in config legal on this device for a small shape, named
// explicitly (so each family's launch runs through the runtime: tensor maps, clusters, gemv's
// grid), then config NULL (the best known config), each against the harness's fp64 reference.
// Configs no kernel is registered for compile through NVRTC and the kernel cache on first use.
// Then split-K and a tuning table through the same entry.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/runtime_core.hpp"
#include "gpu_test.hpp"
#include "kernels/core/epilogues.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/launch.hpp"
#include "harness/workspace.hpp"
#include "kernels/core/family.hpp"

namespace coalesce {
namespace {

// The descriptors of one workspace's buffers.
struct Operands {
  CoalesceMemRef2D a, b, c, residual;
  CoalesceMemRef1D bias;
  explicit Operands(const Workspace& w) {
    const Problem& p = w.problem();
    auto mat = [](const void* data, int rows, int cols) {
      void* d = const_cast<void*>(data);
      return CoalesceMemRef2D{d, d, 0, {rows, cols}, {cols, 1}};
    };
    a = mat(w.a(), p.m, p.k);
    b = mat(w.b(), p.k, p.n);
    // A gated epilogue's C has N/2 columns (its buffer has room for N).
    c = mat(w.c(), p.m, static_cast<int>(output_columns(epilogue_spec(p.epilogue).reads, p.n)));
    void* bias_data = const_cast<void*>(w.bias());
    bias = CoalesceMemRef1D{bias_data, bias_data, 0, {p.n}, {1}};
    residual = mat(w.residual(), p.m, p.n);
  }
};

coalesce_dtype abi(Dtype d) { return static_cast<coalesce_dtype>(static_cast<int>(d)); }

// Runs C = epilogue(A B + bias) [+ residual] through the C ABI (coalesce_fused_matmul_residual
// where the epilogue reads a residual) with `config` (nullptr: the best known one) on a
// stream of its own and checks it against the fp64 reference.
void expect_runs_correctly(const Problem& p, const char* config) {
  cudaStream_t stream = nullptr;
  COALESCE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Workspace w(p, 17, stream);
  Operands o(w);
  w.poison_output(stream);
  const EpilogueReads reads = epilogue_spec(p.epilogue).reads;
  const CoalesceMemRef1D* bias = reads.column_bias ? &o.bias : nullptr;
  const std::string epilogue(to_string(p.epilogue));
  const coalesce_status status =
      reads.residual ? coalesce_fused_matmul_residual(&o.a, &o.b, bias, &o.residual, &o.c, abi(p.dtype), epilogue.c_str(),
                                                      config, stream)
                     : coalesce_fused_matmul(&o.a, &o.b, bias, &o.c, abi(p.dtype), epilogue.c_str(), config, stream);
  ASSERT_EQ(status, COALESCE_OK) << coalesce_last_error();
  EXPECT_STREQ(coalesce_last_error(), "");
  COALESCE_CUDA(cudaStreamSynchronize(stream));
  const CheckResult r = w.check(ReferenceKind{p.epilogue, false});
  EXPECT_TRUE(r.passed) << r.why << " (rel_frobenius " << r.errors.rel_frobenius << ")";
  COALESCE_CUDA(cudaStreamDestroy(stream));
}

// A, B and C as row slices of wider matrices (rows `pad` elements longer than their width, a
// user's sliced tensors): the launch copies them through contiguous rows (Staging). C's padding
// columns hold a pattern the call must leave as it is.
void expect_row_slices_run_correctly(const Problem& p, const char* config) {
  cudaStream_t stream = nullptr;
  COALESCE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Workspace w(p, 23, stream);
  COALESCE_CUDA(cudaStreamSynchronize(stream));  // the inputs are drawn on the stream
  const GemmTypes t = p.types();
  const int ea = element_bytes(t.a), eb = element_bytes(t.b), ec = element_bytes(t.c);
  const int lda = p.k + 24, ldb = p.n + 8, ldc = p.n + 40;  // elements; 16-byte multiples or not
  void *a = nullptr, *b = nullptr, *c = nullptr;
  COALESCE_CUDA(cudaMalloc(&a, static_cast<std::size_t>(p.m) * lda * ea));
  COALESCE_CUDA(cudaMalloc(&b, static_cast<std::size_t>(p.k) * ldb * eb));
  COALESCE_CUDA(cudaMalloc(&c, static_cast<std::size_t>(p.m) * ldc * ec));
  COALESCE_CUDA(cudaMemcpy2D(a, lda * ea, w.a(), p.k * ea, p.k * ea, p.m, cudaMemcpyDeviceToDevice));
  COALESCE_CUDA(cudaMemcpy2D(b, ldb * eb, w.b(), p.n * eb, p.n * eb, p.k, cudaMemcpyDeviceToDevice));
  COALESCE_CUDA(cudaMemset(c, 0x5a, static_cast<std::size_t>(p.m) * ldc * ec));
  CoalesceMemRef2D ad{a, a, 0, {p.m, p.k}, {lda, 1}}, bd{b, b, 0, {p.k, p.n}, {ldb, 1}},
      cd{c, c, 0, {p.m, p.n}, {ldc, 1}};
  void* bias_data = const_cast<void*>(w.bias());
  CoalesceMemRef1D bias{bias_data, bias_data, 0, {p.n}, {1}};
  const std::string epilogue(to_string(p.epilogue));
  ASSERT_EQ(coalesce_fused_matmul(&ad, &bd, &bias, &cd, abi(p.dtype), epilogue.c_str(), config, stream), COALESCE_OK)
      << coalesce_last_error();
  COALESCE_CUDA(cudaStreamSynchronize(stream));
  // C's rows into the workspace's C for the fp64 check; the padding checked byte by byte.
  w.poison_output(stream);
  COALESCE_CUDA(cudaStreamSynchronize(stream));
  COALESCE_CUDA(cudaMemcpy2D(w.c(), p.n * ec, c, ldc * ec, p.n * ec, p.m,
                             cudaMemcpyDeviceToDevice));
  const CheckResult r = w.check(ReferenceKind{p.epilogue, false});
  EXPECT_TRUE(r.passed) << r.why << " (rel_frobenius " << r.errors.rel_frobenius << ")";
  std::vector<unsigned char> host(static_cast<std::size_t>(p.m) * ldc * ec);
  COALESCE_CUDA(cudaMemcpy(host.data(), c, host.size(), cudaMemcpyDeviceToHost));
  long long touched = 0;
  for (int row = 0; row < p.m; ++row)
    for (long long byte = static_cast<long long>(p.n) * ec; byte < static_cast<long long>(ldc) * ec; ++byte)
      touched += host[static_cast<std::size_t>(row) * ldc * ec + byte] != 0x5a;
  EXPECT_EQ(touched, 0) << "bytes of C's padding columns written";
  for (void* x : {a, b, c}) COALESCE_CUDA(cudaFree(x));
  COALESCE_CUDA(cudaStreamDestroy(stream));
}

// Small shapes, with edges: a square for the tile families, a small M for gemv.
const Problem kShapes[] = {{256, 256, 256}, {200, 136, 72}, {8, 256, 512}, {3, 200, 136}};

TEST(RuntimeFusedMatmul, EveryFamilyAndDtypeMatchesTheReference) {
  COALESCE_REQUIRE_GPU();
  const Target target = current_target();
  for (const Family* family : families()) {
    if (!family->supports(target).ok()) continue;
    for (Dtype dtype : all_dtypes()) {
      if (!family->supports(dtype).ok()) continue;
      int ran = 0;
      for (Problem shape : kShapes) {
        const Problem p{shape.m, shape.n, shape.k, dtype, Epilogue::bias_gelu};
        for (const Config& config : family->builtin_configs(p)) {
          if (!fits(config, p, target).ok()) continue;
          const std::string name = config_name(config, dtype, p.epilogue);
          SCOPED_TRACE(name + " on " + shape_string(p));
          expect_runs_correctly(p, name.c_str());
          ++ran;
          break;
        }
      }
      EXPECT_GT(ran, 0) << "no built-in " << family->name() << " config runs any test shape in "
                        << to_string(dtype);
    }
  }
}

// Row slices (issue 39's leading dimensions) through each family's first built-in config that
// fits, in its first 16-bit dtype (f32 for simt), at an unaligned N for wgmma's padding too.
TEST(RuntimeFusedMatmul, RowSlicesOfWiderMatricesMatchTheReference) {
  COALESCE_REQUIRE_GPU();
  const Target target = current_target();
  for (const Family* family : families()) {
    if (!family->supports(target).ok()) continue;
    const Dtype dtype = family->supports(Dtype::bf16).ok() ? Dtype::bf16 : Dtype::f32;
    bool ran = false;
    for (Problem shape : {Problem{200, 136, 72}, Problem{200, 131, 77}, Problem{3, 200, 136}}) {
      const Problem p{shape.m, shape.n, shape.k, dtype, Epilogue::bias_gelu};
      for (const Config& config : family->builtin_configs(p)) {
        if (!fits(config, p, target).ok()) continue;
        const std::string name = config_name(config, dtype, p.epilogue);
        SCOPED_TRACE(name + " on " + shape_string(p) + " as row slices");
        expect_row_slices_run_correctly(p, name.c_str());
        ran = true;
        break;
      }
    }
    EXPECT_TRUE(ran) << "no built-in " << family->name() << " config runs a row-slice shape";
  }
}

// Config NULL: every epilogue in f32 (the library's compiled-in simt kernels) and one in each
// other dtype (each a kernel NVRTC compiles, so one apiece keeps the test short).
TEST(RuntimeFusedMatmul, TheBestKnownConfigForEachDtypeAndEpilogue) {
  COALESCE_REQUIRE_GPU();
  std::vector<Problem> problems;
  // The residual through coalesce_fused_matmul_residual (mma's kernels read it at any M, gemv's
  // at decode sizes): f32 at the square edge shape, bf16 at M = 8.
  for (Epilogue e : all_epilogues()) problems.push_back({200, 136, 72, Dtype::f32, e});
  problems.push_back({8, 256, 512, Dtype::bf16, Epilogue::bias_gelu_residual});
  for (Dtype d : {Dtype::tf32, Dtype::bf16, Dtype::f16}) problems.push_back({200, 136, 72, d, Epilogue::bias_relu});
  // The gated pair in 16-bit: N = 136 is 68 gate and up columns interleaved, C 200 x 68.
  for (Dtype d : {Dtype::bf16, Dtype::f16}) problems.push_back({200, 136, 72, d, Epilogue::swiglu});
  problems.push_back({3, 2048, 1032, Dtype::bf16, Epilogue::geglu});
  for (const Problem& p : problems) {
    SCOPED_TRACE(std::string(to_string(p.dtype)) + " " + std::string(to_string(p.epilogue)));
    expect_runs_correctly(p, nullptr);
  }
}

// Split-K through the C ABI: the workspace from the stream's pool, the kernel over S slices and
// the reduce, on a problem of few tiles and a deep K.
TEST(RuntimeFusedMatmul, SplitKConfigsRunWithTheirWorkspace) {
  COALESCE_REQUIRE_GPU();
  const Target target = current_target();
  for (Dtype dtype : {Dtype::f32, Dtype::bf16}) {
    const Problem p{64, 128, 2048, dtype, Epilogue::bias_gelu};
    bool ran = false;
    for (const Family* family : families()) {
      const auto& params = family->params();
      bool splits = false;
      for (const ParamSpec& s : params) splits = splits || s.name == kSplitParam;
      if (!splits || !family->supports(dtype).ok() || !family->supports(target).ok()) continue;
      for (const Config& base : family->builtin_configs(p)) {
        const Config split = family->with(base, kSplitParam, 4);
        if (!fits(split, p, target).ok()) continue;
        const std::string name = config_name(split, dtype, p.epilogue);
        SCOPED_TRACE(name);
        expect_runs_correctly(p, name.c_str());
        ran = true;
        break;
      }
    }
    EXPECT_TRUE(ran) << "no family split K for " << to_string(dtype);
  }
}

// A tuning table's row for this GPU and problem is what config NULL runs; another problem keeps
// the built-in choice.
TEST(RuntimeFusedMatmul, ATuningTableRowIsRunForItsGpu) {
  COALESCE_REQUIRE_GPU();
  const Problem p{200, 136, 72, Dtype::f32, Epilogue::bias_relu};
  const Config first = find_family("simt")->builtin_configs(p).back();  // vec = 1: not the untuned choice
  const std::string name = config_name(first, p.dtype, p.epilogue);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "coalesce_runtime_gpu_table.tsv";
  std::ofstream(path) << "gpu_model\tdtype\tepilogue\tm\tn\tk\tconfig_name\tmedian_us\n"
                      << query_device(0).name << "\tf32\tbias_relu\t200\t136\t72\t" << name << "\t1.0\n";
  EXPECT_NE(runtime::best_known_config_name(p), name);
  ASSERT_EQ(coalesce_load_tuning_table(path.c_str()), COALESCE_OK) << coalesce_last_error();
  EXPECT_EQ(runtime::best_known_config_name(p), name);
  Problem other = p;
  other.m = 201;
  EXPECT_NE(runtime::best_known_config_name(other), name);
  expect_runs_correctly(p, nullptr);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace coalesce
