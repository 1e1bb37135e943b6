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
using mlir::coalesce::MatmulOp;
using mlir::coalesce::ReluOp;

// The memref element type of a dtype's storage (TF32 is a math mode on f32 storage).
Type elementType(OpBuilder& builder, Dtype d) {
  switch (gemm_types(d).a) {
    case Element::f32: return builder.getF32Type();
    case Element::bf16: return builder.getBF16Type();
    case Element::f16: return builder.getF16Type();
  }
  return builder.getF32Type();
}

// func.func @<name>(A: MxK, B: KxN, [bias: N,] C: MxN) computing the problem unfused:
//   matmul -> T; bias_add(T) -> U; relu/gelu(U) -> C   (shortened for shorter epilogues)
// with T and U local allocs, the shape coalesce-fuse-epilogue folds into one kernel. A gated
// epilogue's C is MxN/2 (Problem::c_cols()), built as the fused op.
OwningOpRef<ModuleOp> buildProblem(MLIRContext& context, const Problem& p, const std::string& name) {
  OpBuilder builder(&context);
  Location loc = NameLoc::get(builder.getStringAttr(name));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  Type element = elementType(builder, p.dtype);
  auto a = MemRefType::get({p.m, p.k}, element), b = MemRefType::get({p.k, p.n}, element);
  auto c = MemRefType::get({p.m, p.c_cols()}, element), bias = MemRefType::get({p.n}, element);
  const EpilogueSpec& spec = epilogue_spec(p.epilogue);
  bool hasBias = spec.reads.column_bias;
  SmallVector<Type> inputs{a, b};
  if (hasBias) inputs.push_back(bias);
  inputs.push_back(c);
  auto function = func::FuncOp::create(builder, loc, name, builder.getFunctionType(inputs, {}));
  Block* body = function.addEntryBlock();
  builder.setInsertionPointToEnd(body);

  Value argA = body->getArgument(0), argB = body->getArgument(1);
  Value argBias = hasBias ? body->getArgument(2) : Value();
  Value argC = body->getArgument(hasBias ? 3 : 2);
  SmallVector<Value> temporaries;
  auto temporary = [&] {
    temporaries.push_back(memref::AllocOp::create(builder, loc, c));
    return temporaries.back();
  };

  mlir::coalesce::MathKindAttr math;
  if (p.dtype == Dtype::tf32)
    math = mlir::coalesce::MathKindAttr::get(builder.getContext(), mlir::coalesce::MathKind::tensorfloat32);
  // An activation with no op of its own in the dialect (tanh GELU, SiLU), and a gated epilogue
  // (no multiply op yet: issue 40 item 5), is built as the fused op it stands for, which
  // coalesce-fuse-epilogue leaves as it is.
  const bool hasChain = !spec.reads.gated && (spec.activation == Activation::identity ||
                                              spec.activation == Activation::relu ||
                                              spec.activation == Activation::gelu_erf);
  if (!hasChain) {
    FusedMatmulOp::create(builder, loc, mlir::coalesce::fromCoreEpilogue(p.epilogue), argA, argB, argBias, argC,
                          mlir::coalesce::TileConfigAttrInterface(), mlir::coalesce::TargetAttr(), math);
    func::ReturnOp::create(builder, loc);
    return module;
  }
  Value product = hasBias ? temporary() : argC;
  MatmulOp::create(builder, loc, argA, argB, product, math);
  if (hasBias) {
    bool activation = spec.activation != Activation::identity;
    Value biased = activation ? temporary() : argC;
    BiasAddOp::create(builder, loc, product, argBias, biased);
    if (spec.activation == Activation::relu) ReluOp::create(builder, loc, biased, argC);
    if (spec.activation == Activation::gelu_erf) GeluOp::create(builder, loc, biased, argC);
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
  if (epilogue_spec(problem.epilogue).reads.residual)
    throw fail("the epilogue reads an M x N residual, which coalesce.fused_matmul has no operand for yet");

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
