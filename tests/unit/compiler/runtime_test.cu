// The runtime library (compiler/runtime/) on the GPU: every entry point coalesce-lower-to-library
// calls, checked against the harness's fp64 reference on shapes that take each built-in config
// (4-, 2- and 1-float copies of B), those of the epilogues and unfused ops of issue 40, the
// entries an emitted unit defines (fused_entry.cuh; unsplit
// and split-K) and the device allocator. Every case needs a GPU; the refusal of bad operands, which needs none, is
// runtime_refusal_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/fused_entry.cuh"
#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/workspace.hpp"
#include "kernels/simt/gemm.cuh"

// What coalesce-translate --mlir-to-cuda-host emits for a tiled bias_relu op, written out: the
// kernel's symbol is its config name, which the entry hands to the runtime.
using Tile64 = coalesce::SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 4>;
COALESCE_DEFINE_SIMT_KERNEL(simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_relu, Tile64,
                            coalesce::EpilogueFor<coalesce::Epilogue::bias_relu>)
COALESCE_DEFINE_FUSED_ENTRY(runtime_test_entry_64x64_bias_relu,
                            simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_relu, Tile64)

// A split-K config's unit (split = 4 with a bias; split = 3 without, on an N the reduce walks one
// element at a time): the kernel stores partial sums, the runtime adds the reduce.
using SplitTile4 = coalesce::SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 4, 4>;
using SplitTile3Vec1 = coalesce::SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 1, 8, 4, 3>;
COALESCE_DEFINE_SIMT_KERNEL(simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu, SplitTile4,
                            coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)
COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY(runtime_test_entry_64x64_sk4_bias_gelu,
                                    simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu,
                                    coalesce::Epilogue::bias_gelu, SplitTile4)
COALESCE_DEFINE_SIMT_KERNEL(simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v1_g8_o4_sk3_none, SplitTile3Vec1,
                            coalesce::EpilogueFor<coalesce::Epilogue::none>)
COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY_NO_BIAS(runtime_test_entry_64x64_v1_sk3_none,
                                            simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v1_g8_o4_sk3_none,
                                            SplitTile3Vec1)

// The untiled f32 entries of the epilogues since issue 40 (mlir_entries.cpp; untyped
// descriptors, in the op's operand order), which the header documents by pattern.
extern "C" {
void _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_tanh(const CoalesceMemRef2D*, const CoalesceMemRef2D*,
                                                           const CoalesceMemRef1D*, const CoalesceMemRef2D*);
void _mlir_ciface_coalesce_fused_matmul_f32_bias_silu(const CoalesceMemRef2D*, const CoalesceMemRef2D*,
                                                      const CoalesceMemRef1D*, const CoalesceMemRef2D*);
void _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_residual(const CoalesceMemRef2D*, const CoalesceMemRef2D*,
                                                               const CoalesceMemRef1D*, const CoalesceMemRef2D*,
                                                               const CoalesceMemRef2D*);
void _mlir_ciface_coalesce_fused_matmul_f32_swiglu(const CoalesceMemRef2D*, const CoalesceMemRef2D*,
                                                   const CoalesceMemRef2D*);
void _mlir_ciface_coalesce_fused_matmul_f32_geglu(const CoalesceMemRef2D*, const CoalesceMemRef2D*,
                                                  const CoalesceMemRef2D*);
}

namespace coalesce {
namespace {

CoalesceMemRef2DF32 matrix(const float* data, int rows, int cols) {
  float* p = const_cast<float*>(data);
  return {p, p, 0, {rows, cols}, {cols, 1}};
}
CoalesceMemRef1DF32 vector(const float* data, int size) {
  float* p = const_cast<float*>(data);
  return {p, p, 0, {size}, {1}};
}

// The runtime's operands of one workspace, as the f32 entries take them (a, b, c, bias) and as
// the emitted entries do (untyped descriptors of the same buffers).
struct Operands {
  CoalesceMemRef2DF32 a, b, c;
  CoalesceMemRef1DF32 bias;
  CoalesceMemRef2D ua, ub, uc;
  CoalesceMemRef1D ubias;
  explicit Operands(const Workspace& w)
      : a(matrix(static_cast<const float*>(w.a()), w.problem().m, w.problem().k)),
        b(matrix(static_cast<const float*>(w.b()), w.problem().k, w.problem().n)),
        c(matrix(static_cast<const float*>(w.c()), w.problem().m, w.problem().n)),
        bias(vector(static_cast<const float*>(w.bias()), w.problem().n)),
        ua{a.allocated, a.aligned, 0, {a.sizes[0], a.sizes[1]}, {a.strides[0], 1}},
        ub{b.allocated, b.aligned, 0, {b.sizes[0], b.sizes[1]}, {b.strides[0], 1}},
        uc{c.allocated, c.aligned, 0, {c.sizes[0], c.sizes[1]}, {c.strides[0], 1}},
        ubias{bias.allocated, bias.aligned, 0, {bias.sizes[0]}, {1}} {}
};

// Shapes whose first legal built-in config copies B 4, 2 and 1 floats at a time, with edges.
const int kShapes[][3] = {{256, 256, 128}, {200, 30, 77}, {129, 31, 65}};

void expect_matches_reference(Workspace& w, Epilogue e) {
  COALESCE_CUDA(cudaDeviceSynchronize());
  CheckResult r = w.check(ReferenceKind{e, false});
  EXPECT_TRUE(r.passed) << r.why << " (rel_frobenius " << r.errors.rel_frobenius << ")";
}

TEST(Runtime, GenericFusedEntriesMatchTheReference) {
  COALESCE_REQUIRE_GPU();
  for (const auto& s : kShapes)
    for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
      SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) +
                   " " + std::string(to_string(e)));
      Workspace w(Problem{s[0], s[1], s[2], Dtype::f32, e}, 7, nullptr);
      Operands o(w);
      w.poison_output();
      switch (e) {
        case Epilogue::none: _mlir_ciface_coalesce_fused_matmul_f32_none(&o.a, &o.b, &o.c); break;
        case Epilogue::bias: _mlir_ciface_coalesce_fused_matmul_f32_bias(&o.a, &o.b, &o.bias, &o.c); break;
        case Epilogue::bias_relu:
          _mlir_ciface_coalesce_fused_matmul_f32_bias_relu(&o.a, &o.b, &o.bias, &o.c);
          break;
        case Epilogue::bias_gelu:
          _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu(&o.a, &o.b, &o.bias, &o.c);
          break;
      }
      expect_matches_reference(w, e);
    }
}

// The unfused program as coalesce-lower-to-library lowers it: matmul into a device temporary,
// bias_add into a second one, the activation into C; then the in-place variant.
TEST(Runtime, UnfusedSequenceThroughDeviceTemporariesMatchesTheReference) {
  COALESCE_REQUIRE_GPU();
  for (const auto& s : kShapes)
    for (Epilogue e : {Epilogue::bias_relu, Epilogue::bias_gelu}) {
      SCOPED_TRACE(std::to_string(s[1]) + " columns, " + std::string(to_string(e)));
      Workspace w(Problem{s[0], s[1], s[2], Dtype::f32, e}, 11, nullptr);
      Operands o(w);
      CoalesceMemRef2DF32 product, biased;
      _mlir_ciface_coalesce_alloc_2d_f32(&product, s[0], s[1]);
      _mlir_ciface_coalesce_alloc_2d_f32(&biased, s[0], s[1]);
      EXPECT_EQ(product.strides[0], s[1]);
      EXPECT_EQ(product.strides[1], 1);
      w.poison_output();
      _mlir_ciface_coalesce_matmul_f32(&o.a, &o.b, &product);
      _mlir_ciface_coalesce_bias_add_f32(&product, &o.bias, &biased);
      if (e == Epilogue::bias_relu) _mlir_ciface_coalesce_relu_f32(&biased, &o.c);
      else _mlir_ciface_coalesce_gelu_f32(&biased, &o.c);
      expect_matches_reference(w, e);

      // In place: C = A B, C += bias, C = act(C).
      w.poison_output();
      _mlir_ciface_coalesce_matmul_f32(&o.a, &o.b, &o.c);
      _mlir_ciface_coalesce_bias_add_f32(&o.c, &o.bias, &o.c);
      if (e == Epilogue::bias_relu) _mlir_ciface_coalesce_relu_f32(&o.c, &o.c);
      else _mlir_ciface_coalesce_gelu_f32(&o.c, &o.c);
      expect_matches_reference(w, e);
      _mlir_ciface_coalesce_free_2d_f32(&product);
      _mlir_ciface_coalesce_free_2d_f32(&biased);
    }
}

CoalesceMemRef2D untyped_matrix(const void* data, int rows, int cols) {
  void* p = const_cast<void*>(data);
  return {p, p, 0, {rows, cols}, {cols, 1}};
}

// The issue-40 epilogues through their untiled entries, the runtime choosing a config that runs
// each: the tanh GELU and SiLU (simt's built-ins), the gated pair (a family that stores a gate;
// C of N/2 columns) and the residual at every shape (mma's and gemv's kernels read one; before
// mma read one, a residual above decode sizes was refused with each family's reason).
TEST(Runtime, Issue40FusedEntriesMatchTheReference) {
  COALESCE_REQUIRE_GPU();
  const int shapes[][3] = {{256, 256, 128}, {200, 30, 77}, {4, 512, 320}};
  for (const auto& s : shapes)
    for (Epilogue e : {Epilogue::bias_gelu_tanh, Epilogue::bias_silu, Epilogue::swiglu, Epilogue::geglu,
                       Epilogue::bias_gelu_residual}) {
      SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) + " " +
                   std::string(to_string(e)));
      const Problem p{s[0], s[1], s[2], Dtype::f32, e};
      Workspace w(p, 13, nullptr);
      Operands o(w);
      const CoalesceMemRef2D c = untyped_matrix(w.c(), p.m, static_cast<int>(p.c_cols()));
      const CoalesceMemRef2D r = untyped_matrix(w.residual(), p.m, p.n);
      w.poison_output();
      switch (e) {
        case Epilogue::bias_gelu_tanh:
          _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_tanh(&o.ua, &o.ub, &o.ubias, &c);
          break;
        case Epilogue::bias_silu: _mlir_ciface_coalesce_fused_matmul_f32_bias_silu(&o.ua, &o.ub, &o.ubias, &c); break;
        case Epilogue::swiglu: _mlir_ciface_coalesce_fused_matmul_f32_swiglu(&o.ua, &o.ub, &c); break;
        case Epilogue::geglu: _mlir_ciface_coalesce_fused_matmul_f32_geglu(&o.ua, &o.ub, &c); break;
        default: _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_residual(&o.ua, &o.ub, &o.ubias, &r, &c); break;
      }
      expect_matches_reference(w, e);
    }
}

// The unfused ops of issue 40 as coalesce-lower-to-library lowers them: matmul, bias_add and the
// tanh GELU or SiLU; then the exact GELU and the residual add (its product second, as x +
// mlp(x)); then matmul and glu over the gate/up product.
TEST(Runtime, Issue40UnfusedSequencesMatchTheReference) {
  COALESCE_REQUIRE_GPU();
  for (const auto& s : kShapes)
    for (Epilogue e : {Epilogue::bias_gelu_tanh, Epilogue::bias_silu, Epilogue::bias_gelu_residual, Epilogue::swiglu,
                       Epilogue::geglu}) {
      if (epilogue_spec(e).reads.gated && s[1] % 2 != 0) continue;
      SCOPED_TRACE(std::to_string(s[1]) + " columns, " + std::string(to_string(e)));
      const Problem p{s[0], s[1], s[2], Dtype::f32, e};
      Workspace w(p, 19, nullptr);
      Operands o(w);
      CoalesceMemRef2DF32 product;
      _mlir_ciface_coalesce_alloc_2d_f32(&product, s[0], s[1]);
      CoalesceMemRef2DF32 c = matrix(static_cast<const float*>(w.c()), p.m, static_cast<int>(p.c_cols()));
      w.poison_output();
      _mlir_ciface_coalesce_matmul_f32(&o.a, &o.b, &product);
      if (e == Epilogue::swiglu) {
        _mlir_ciface_coalesce_glu_silu_f32(&product, &c);
      } else if (e == Epilogue::geglu) {
        _mlir_ciface_coalesce_glu_gelu_f32(&product, &c);
      } else {
        _mlir_ciface_coalesce_bias_add_f32(&product, &o.bias, &product);
        if (e == Epilogue::bias_gelu_tanh) _mlir_ciface_coalesce_gelu_tanh_f32(&product, &c);
        if (e == Epilogue::bias_silu) _mlir_ciface_coalesce_silu_f32(&product, &c);
        if (e == Epilogue::bias_gelu_residual) {
          const CoalesceMemRef2DF32 r = matrix(static_cast<const float*>(w.residual()), p.m, p.n);
          _mlir_ciface_coalesce_gelu_f32(&product, &product);
          _mlir_ciface_coalesce_add_f32(&r, &product, &c);
        }
      }
      expect_matches_reference(w, e);
      _mlir_ciface_coalesce_free_2d_f32(&product);
    }
}

TEST(Runtime, EmittedEntryLaunchesItsKernel) {
  COALESCE_REQUIRE_GPU();
  Workspace w(Problem{300, 192, 100, Dtype::f32, Epilogue::bias_relu}, 3, nullptr);
  Operands o(w);
  w.poison_output();
  _mlir_ciface_runtime_test_entry_64x64_bias_relu(&o.ua, &o.ub, &o.ubias, &o.uc);
  expect_matches_reference(w, Epilogue::bias_relu);
}

// A split-K entry: the kernel over grid z = 4 into the runtime's partials, then the reduce with
// the bias and GELU. K = 300 is 19 BK-deep steps, so the last slice is shorter. Deterministic:
// a second call stores the same bits.
TEST(Runtime, SplitKEntryRunsKernelAndReduce) {
  COALESCE_REQUIRE_GPU();
  Workspace w(Problem{200, 192, 300, Dtype::f32, Epilogue::bias_gelu}, 5, nullptr);
  Operands o(w);
  w.poison_output();
  _mlir_ciface_runtime_test_entry_64x64_sk4_bias_gelu(&o.ua, &o.ub, &o.ubias, &o.uc);
  expect_matches_reference(w, Epilogue::bias_gelu);
  const std::size_t count = 200 * 192;
  std::vector<float> first(count), second(count);
  COALESCE_CUDA(cudaMemcpy(first.data(), w.c(), count * sizeof(float), cudaMemcpyDeviceToHost));
  w.poison_output();
  _mlir_ciface_runtime_test_entry_64x64_sk4_bias_gelu(&o.ua, &o.ub, &o.ubias, &o.uc);
  COALESCE_CUDA(cudaMemcpy(second.data(), w.c(), count * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(first.data(), second.data(), count * sizeof(float)), 0);
}

// The empty epilogue's split-K entry (no bias) on N = 31, where the reduce goes one element at a
// time; K = 65 is 5 steps in slices of 2, 2 and 1.
TEST(Runtime, SplitKEntryWithoutBiasOnAnUnalignedN) {
  COALESCE_REQUIRE_GPU();
  Workspace w(Problem{129, 31, 65, Dtype::f32, Epilogue::none}, 9, nullptr);
  Operands o(w);
  w.poison_output();
  _mlir_ciface_runtime_test_entry_64x64_v1_sk3_none(&o.ua, &o.ub, &o.uc);
  expect_matches_reference(w, Epilogue::none);
}

TEST(Runtime, AllocatorGivesAlignedDeviceBuffersAndEmptyOnes) {
  COALESCE_REQUIRE_GPU();
  CoalesceMemRef1DF32 empty;
  _mlir_ciface_coalesce_alloc_1d_f32(&empty, 0);
  EXPECT_EQ(empty.aligned, nullptr);
  _mlir_ciface_coalesce_free_1d_f32(&empty);
  CoalesceMemRef1DF32 v;
  _mlir_ciface_coalesce_alloc_1d_f32(&v, 1000);
  ASSERT_NE(v.aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.aligned) % 16, 0u);
  COALESCE_CUDA(cudaMemsetAsync(v.aligned, 0, 1000 * sizeof(float), nullptr));
  _mlir_ciface_coalesce_free_1d_f32(&v);
  COALESCE_CUDA(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace coalesce
