//===- Emit.cpp - emit_fused_kernel: the tuner's way through the compiler ---===//
// The tuner instantiates every config the way a program would be compiled: unfused IR for the
// problem, then the same passes and the same CUDA emitter as coalesce-opt/coalesce-translate.
#include "Coalesce/Emit.h"

#include <stdexcept>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include "Coalesce/CoalesceDialect.h"
#include "Coalesce/CoalesceOps.h"
#include "Coalesce/CudaEmitter.h"
#include "Coalesce/Passes.h"
#include "kernels/core/epilogues.hpp"

namespace coalesce::compiler {

namespace {

using namespace mlir;
using mlir::coalesce::BiasAddOp;
using mlir::coalesce::FusedMatmulOp;
using mlir::coalesce::GeluOp;
using mlir::coalesce::GeluTanhOp;
using mlir::coalesce::MatmulOp;
using mlir::coalesce::ReluOp;
using mlir::coalesce::SiluOp;

// The memref element type of a dtype's storage (TF32 is a math mode on f32 storage).
Type elementType(OpBuilder& builder, Dtype d) {
  switch (gemm_types(d).a) {
    case Element::f32: return builder.getF32Type();
    case Element::bf16: return builder.getBF16Type();
    case Element::f16: return builder.getF16Type();
  }
  return builder.getF32Type();
}

// The dialect's activation ops, each naming its registry activation as kActivation.
template <class... Ops>
struct ActivationOpList {
  static bool has(Activation activation) { return ((Ops::kActivation == activation) || ...); }
  static void create(OpBuilder& builder, Location loc, Activation activation, Value input, Value output) {
    ((Ops::kActivation == activation ? (Ops::create(builder, loc, input, output), true) : false) || ...);
  }
};
using ActivationOps = ActivationOpList<ReluOp, GeluOp, GeluTanhOp, SiluOp>;

// func.func @<name>(A: MxK, B: KxN, [bias: N,] [R: MxN,] C) computing the problem unfused, one
// op per stage of the registry row's formula:
//   matmul -> T; bias_add(T) -> U; act(U) -> V; add(V, R) -> C      (shortened where it reads less)
//   matmul -> T; glu act(T) -> C                                     (gated: C is MxN/2)
// with T, U and V local allocs, the shape coalesce-fuse-epilogue folds into one kernel. A row
// whose activation has no op in the dialect yet (a new row: adding an activation is a functor and
// a row, docs/kernels.md) is built as the fused op it stands for, which the pass leaves as it is.
OwningOpRef<ModuleOp> buildProblem(MLIRContext& context, const Problem& p, const std::string& name) {
  OpBuilder builder(&context);
  Location loc = NameLoc::get(builder.getStringAttr(name));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  Type element = elementType(builder, p.dtype);
  auto a = MemRefType::get({p.m, p.k}, element), b = MemRefType::get({p.k, p.n}, element);
  auto product = MemRefType::get({p.m, p.n}, element), c = MemRefType::get({p.m, p.c_cols()}, element);
  auto bias = MemRefType::get({p.n}, element);
  const EpilogueSpec& spec = epilogue_spec(p.epilogue);
  SmallVector<Type> inputs{a, b};
  if (spec.reads.column_bias) inputs.push_back(bias);
  if (spec.reads.residual) inputs.push_back(product);
  inputs.push_back(c);
  auto function = func::FuncOp::create(builder, loc, name, builder.getFunctionType(inputs, {}));
  Block* body = function.addEntryBlock();
  builder.setInsertionPointToEnd(body);

  unsigned next = 0;
  Value argA = body->getArgument(next++), argB = body->getArgument(next++);
  Value argBias = spec.reads.column_bias ? body->getArgument(next++) : Value();
  Value argResidual = spec.reads.residual ? body->getArgument(next++) : Value();
  Value argC = body->getArgument(next);
  SmallVector<Value> temporaries;
  // Each stage writes a temporary, the last one C.
  const bool activates = spec.activation != Activation::identity;
  int stagesLeft = 1 + (spec.reads.column_bias ? 1 : 0) + (activates ? 1 : 0) + (spec.reads.residual ? 1 : 0);
  auto stageOutput = [&] {
    if (--stagesLeft == 0) return argC;
    temporaries.push_back(memref::AllocOp::create(builder, loc, product));
    return temporaries.back();
  };

  mlir::coalesce::MathKindAttr math;
  if (p.dtype == Dtype::tf32)
    math = mlir::coalesce::MathKindAttr::get(builder.getContext(), mlir::coalesce::MathKind::tensorfloat32);
  const bool hasOps = spec.reads.gated ? mlir::coalesce::fromCoreActivation(spec.activation).has_value()
                                       : !activates || ActivationOps::has(spec.activation);
  if (!hasOps) {
    FusedMatmulOp::create(builder, loc, mlir::coalesce::fromCoreEpilogue(p.epilogue), argA, argB, argBias, argResidual,
                          argC, mlir::coalesce::TileConfigAttrInterface(), mlir::coalesce::TargetAttr(), math);
    func::ReturnOp::create(builder, loc);
    return module;
  }
  Value value = stageOutput();
  MatmulOp::create(builder, loc, argA, argB, value, math);
  if (spec.reads.gated) {
    mlir::coalesce::GluOp::create(builder, loc, *mlir::coalesce::fromCoreActivation(spec.activation), value, argC);
  } else {
    if (spec.reads.column_bias) {
      Value biased = stageOutput();
      BiasAddOp::create(builder, loc, value, argBias, biased);
      value = biased;
    }
    if (activates) {
      Value activated = stageOutput();
      ActivationOps::create(builder, loc, spec.activation, value, activated);
      value = activated;
    }
    if (spec.reads.residual) mlir::coalesce::AddOp::create(builder, loc, value, argResidual, stageOutput());
  }
  for (Value t : temporaries) memref::DeallocOp::create(builder, loc, t);
  func::ReturnOp::create(builder, loc);
  return module;
}

}  // namespace

EmittedKernel emit_fused_kernel(const Problem& problem, const Config& config, const Target& target) {
  std::string name = config_name(config, problem.dtype, problem.epilogue);
  auto fail = [&](const std::string& why) {
    return std::runtime_error("emit_fused_kernel(" + name + ", " + std::to_string(problem.m) +
                              "x" + std::to_string(problem.n) + "x" + std::to_string(problem.k) +
                              "): " + why);
  };
  if (problem.m <= 0 || problem.n <= 0 || problem.k <= 0)
    throw fail("M, N and K must be positive");

  DialectRegistry registry;
  registry.insert<mlir::coalesce::CoalesceDialect, func::FuncDialect, memref::MemRefDialect,
                  arith::ArithDialect>();
  // One context per call, without its own thread pool: the tuner emits from many threads.
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic& diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + diagnostic.str();
    return success();
  });

  OwningOpRef<ModuleOp> module = buildProblem(context, problem, name);
  if (failed(verify(*module))) throw fail(diagnostics);
  // The target the fused op must fit, as its attribute (the pass keeps it on the fused op).
  const std::string arch = target.arch();
  auto targetAttr = mlir::coalesce::TargetAttr::get(&context, arch, target.limits.smem_per_block_optin,
                                                    target.limits.regs_per_sm);

  PassManager fusion(&context);
  fusion.addNestedPass<func::FuncOp>(mlir::coalesce::createCoalesceFuseEpilogue());
  if (failed(fusion.run(*module))) throw fail(diagnostics);
  module->walk([&](mlir::coalesce::FusedMatmulOp op) { op.setTargetAttr(targetAttr); });
  PassManager tiling(&context);
  mlir::coalesce::CoalesceApplyTileConfigOptions options;
  options.config = name;
  tiling.addPass(mlir::coalesce::createCoalesceApplyTileConfig(options));
  if (failed(tiling.run(*module))) throw fail(diagnostics);

  // The pipeline must have left exactly one kernel: the problem's, with this config.
  int fused = 0;
  module->walk([&](mlir::coalesce::FusedMatmulOp) { ++fused; });
  if (fused != 1)
    throw fail("the pipeline left " + std::to_string(fused) + " fused kernels instead of one");

  EmittedKernel kernel{name, ""};
  llvm::raw_string_ostream os(kernel.source);
  if (failed(mlir::coalesce::translateToCuda(*module, os, mlir::coalesce::CudaEmission::kernels)))
    throw fail(diagnostics);
  return kernel;
}

}  // namespace coalesce::compiler
