// A second family plugs in through its own files and one registration (the test's
// register_family call, kernels/families.cpp for a built-in one): the space, the compiler's
// tile attribute and emission, and a dry-run sweep compiled by NVRTC take it with no other change.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "Coalesce/CoalesceDialect.h"
#include "Coalesce/CoalesceOps.h"
#include "Coalesce/Emit.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "standin_family/standin_family.hpp"
#include "tuner/space.hpp"
#include "tuner/sweep.hpp"

namespace coalesce {
namespace {

const Target kH200{9, 0, true, DeviceLimits{}};
const Problem kProblem{256, 192, 128, Dtype::f32, Epilogue::bias_gelu};

TEST(StandinFamily, TheSpaceJudgesItByItsOwnRules) {
  const Family& stub = testing::standin_family();
  tuner::Space space = tuner::enumerate(stub, kProblem, kH200);
  // 4 bm x 2 bn x 2 thread counts: bm 512 and 100 threads are not configs.
  EXPECT_EQ(space.candidates.size() + space.non_configs.size(), 16u);
  EXPECT_EQ(space.non_configs.size(), 10u);
  EXPECT_EQ(space.legal(), 6u);
  EXPECT_EQ(space.candidates.front().name, "stub_f32_bm32_bn32_t64_bias_gelu");
  DeviceLimits small;
  small.smem_per_block_optin = 8192;  // (bm + bn) x 64 bytes: bm 128 no longer fits
  tuner::Space pruned = tuner::enumerate(stub, kProblem, Target{9, 0, true, small});
  EXPECT_EQ(pruned.pruned(), 2u);
  for (const tuner::Candidate& c : pruned.candidates)
    if (c.pruned()) EXPECT_EQ(c.verdict.violation, Violation::smem);
  Problem bf16 = kProblem;
  bf16.dtype = Dtype::bf16;
  EXPECT_EQ(tuner::refused(stub, bf16, kH200).violation, Violation::dtype);
}

TEST(StandinFamily, TheCompilerEmitsItsKernel) {
  testing::standin_family();
  const Config config{"stub", {64, 32, 64}};
  compiler::EmittedKernel k = compiler::emit_fused_kernel(kProblem, config, kH200);
  EXPECT_EQ(k.symbol, "stub_f32_bm64_bn32_t64_bias_gelu");
  EXPECT_NE(k.source.find("#include \"kernels/core/epilogue.cuh\""), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("extern \"C\" __global__ void stub_f32_bm64_bn32_t64_bias_gelu("), std::string::npos)
      << k.source;
  // Its own rules refuse through the compiler too: a tile of 100 threads is not a stub config.
  EXPECT_THROW(compiler::emit_fused_kernel(kProblem, Config{"stub", {64, 32, 100}}, kH200), std::runtime_error);
}

// The dialect's tile attribute parses, verifies and prints any registered family.
TEST(StandinFamily, TheTileAttributeTakesIt) {
  testing::standin_family();
  mlir::DialectRegistry registry;
  registry.insert<mlir::coalesce::CoalesceDialect, mlir::func::FuncDialect, mlir::memref::MemRefDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  const char* text = R"mlir(
    func.func @f(%a: memref<256x128xf32>, %b: memref<128x192xf32>, %c: memref<256x192xf32>) {
      coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x192xf32>)
          outs(%c : memref<256x192xf32>) {tile = #coalesce.tile<stub, threads = 128, bn = 32, bm = 64>}
      return
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*module)));
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  EXPECT_NE(printed.find("#coalesce.tile<stub, bm = 64, bn = 32, threads = 128>"), std::string::npos) << printed;
}

TEST(StandinFamily, ADryRunSweepCompilesItWithNvrtc) {
  testing::standin_family();
  const std::filesystem::path cache =
      std::filesystem::temp_directory_path() / ("coalesce-standin-" + std::to_string(::getpid()));
  tuner::SweepOptions o;
  o.problems = {kProblem};
  o.families = {"stub"};
  o.dry_run = true;
  o.cache_dir = cache;
  o.jobs = 2;
  std::ostringstream out;
  EXPECT_EQ(tuner::run_sweep(o, out), 0);
  std::filesystem::remove_all(cache);
  const std::string text = out.str();
  EXPECT_NE(text.find("stub_f32_bm32_bn32_t64_bias_gelu  compiled"), std::string::npos) << text;
  EXPECT_NE(text.find("stub_f32_bm128_bn64_t64_bias_gelu  compiled"), std::string::npos) << text;
  EXPECT_NE(text.find("10 list combinations are not stub configs"), std::string::npos) << text;
  EXPECT_NE(text.find("6 compiled"), std::string::npos) << text;
}

TEST(StandinFamily, ASweepRefusesADtypeItDoesNotCompute) {
  testing::standin_family();
  tuner::SweepOptions o;
  Problem bf16 = kProblem;
  bf16.dtype = Dtype::bf16;
  o.problems = {bf16};
  o.families = {"stub"};
  o.dry_run = true;
  o.cache_dir = std::filesystem::temp_directory_path();
  std::ostringstream out;
  try {
    tuner::run_sweep(o, out);
    FAIL() << "a bf16 sweep of the stub family ran";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the stub family computes f32 only"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace coalesce
