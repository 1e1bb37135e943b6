//===- LowerToLibrary.cpp - coalesce ops to runtime library calls -----------===//
// coalesce-lower-to-library (Passes.td).
//
// Preconditions, checked by the pass before any rewrite (each failure is one error):
//   - every memref a coalesce op touches has the identity (row-major) layout: the runtime
//     takes contiguous row-major buffers;
//   - a matmul or fused matmul computes a dtype of the runtime's C ABI (f32, tf32 = f32 storage
//     with #coalesce.math<tensorfloat32>, bf16, f16); an unfused elementwise op (bias_add, relu,
//     gelu, gelu_tanh, silu, add, glu) is f32, the only type the runtime's elementwise kernels
//     take (16-bit ones fuse into their matmul with coalesce-fuse-epilogue); a glu's activation is
//     that of a gated registry epilogue (silu, gelu), whose act-and-multiply the runtime has;
//   - every memref.alloc used by a coalesce op is used by nothing but coalesce ops and its
//     deallocs: such a buffer lives in device memory, where no host op may touch it.
// Legal after the pass: func.call, memref.cast, arith.constant; no coalesce op remains, and no
// memref.alloc/dealloc of a device buffer.
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "Coalesce/CoalesceOps.h"
#include "Coalesce/LibraryNames.h"
#include "Coalesce/Passes.h"

namespace mlir::coalesce {
#define GEN_PASS_DEF_COALESCELOWERTOLIBRARY
#include "Coalesce/Passes.h.inc"
}  // namespace mlir::coalesce

using namespace mlir;
using namespace mlir::coalesce;
namespace names = ::coalesce::compiler;

namespace {

bool isCoalesceOp(Operation* op) { return isa<CoalesceDialect>(op->getDialect()); }

// The memref of `type`'s element type and rank with every extent dynamic: the one parameter
// type an entry point declares, whatever the static shape at the call.
MemRefType dynamicLike(MemRefType type) {
  return MemRefType::get(SmallVector<int64_t>(type.getRank(), ShapedType::kDynamic),
                         type.getElementType());
}

Value castToDynamic(PatternRewriter& rewriter, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  MemRefType dynamic = dynamicLike(type);
  if (type == dynamic) return value;
  return memref::CastOp::create(rewriter, loc, dynamic, value);
}

// Declares `name` as a private function with the C interface, once per module. False when the
// module already has a symbol of that name with another type (the user's own function).
bool declareEntry(PatternRewriter& rewriter, Operation* anchor, StringRef name,
                  FunctionType type) {
  auto module = anchor->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing.getFunctionType() == type;
  if (module.lookupSymbol(name)) return false;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(module.getBody());
  auto declaration = func::FuncOp::create(rewriter, module.getLoc(), name, type);
  declaration.setPrivate();
  // MLIR's lowering to LLVM then calls `_mlir_ciface_<name>` with memref descriptor pointers.
  declaration->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
  return true;
}

// The dtype an op computes: its first operand's element type, with the math mode of a matmul
// (f32 storage with TF32 math is tf32); nullopt for an element type no kernel computes.
std::optional<::coalesce::Dtype> opDtype(Operation* op) {
  auto element = cast<MemRefType>(op->getOperand(0).getType()).getElementType();
  MathKindAttr math;
  if (auto fused = dyn_cast<FusedMatmulOp>(op)) math = fused.getMathAttr();
  if (auto matmul = dyn_cast<MatmulOp>(op)) math = matmul.getMathAttr();
  return dtypeOf(element, math);
}

// The storage dtype of a buffer's element type (f32, bf16, f16), which names its allocator.
std::optional<::coalesce::Dtype> storageDtype(Type element) { return dtypeOf(element); }

// The entry point an op calls (LibraryNames.h); its dtype is one the runtime takes by precondition.
std::string entryName(Operation* op) {
  const ::coalesce::Dtype dtype = *opDtype(op);
  if (auto glu = dyn_cast<GluOp>(op))
    return names::unfused_entry("glu_" + stringifyActivationKind(glu.getActivation()).str(), dtype);
  auto fused = dyn_cast<FusedMatmulOp>(op);
  if (!fused) return names::unfused_entry(op->getName().stripDialect().str(), dtype);
  ::coalesce::Epilogue epilogue = toCoreEpilogue(fused.getEpilogue());
  if (TileConfigAttrInterface tile = fused.getTileAttr())
    return names::fused_entry(tile.getConfig(), dtype, epilogue);
  return names::fused_entry(dtype, epilogue);
}

// coalesce.<op> ins(%x...) outs(%y)  ==>  call @<entry>(cast %x..., cast %y)
// The operands keep their order (inputs, then the output), so the runtime's C signature reads
// like the op: (A, B, [bias,] [R,] C) for matmuls, (X, [bias | X2,] Y) for the elementwise ops.
struct LowerCoalesceOp : RewritePattern {
  explicit LowerCoalesceOp(MLIRContext* context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation* op, PatternRewriter& rewriter) const override {
    if (!isCoalesceOp(op)) return failure();
    SmallVector<Value> arguments;
    for (Value operand : op->getOperands())
      arguments.push_back(castToDynamic(rewriter, op->getLoc(), operand));
    auto type = FunctionType::get(op->getContext(), ValueRange(arguments).getTypes(), {});
    std::string name = entryName(op);
    if (!declareEntry(rewriter, op, name, type))
      return rewriter.notifyMatchFailure(op, "the module defines the entry point differently");
    rewriter.replaceOpWithNewOp<func::CallOp>(op, name, TypeRange(), arguments);
    return success();
  }
};

// %t = memref.alloc(%d...) : memref<MxNxT> ... memref.dealloc %t
//   ==>  %raw = call @coalesce_alloc_2d_T(M, N) : (index, index) -> memref<?x?xT>
//        %t = memref.cast %raw : memref<?x?xT> to memref<MxNxT>
//        ... call @coalesce_free_2d_T(%raw)
// for T in f32, bf16, f16.
// Applies to allocs used only by coalesce ops and deallocs. The walk driver visits an alloc
// before any of its users (an alloc dominates its uses), so they are still coalesce ops here.
struct AllocOnDevice : OpRewritePattern<memref::AllocOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::AllocOp alloc, PatternRewriter& rewriter) const override {
    Value buffer = alloc.getResult();
    bool usedByCoalesce = llvm::any_of(buffer.getUsers(), isCoalesceOp);
    bool onlyDeviceUsers = llvm::all_of(buffer.getUsers(), [](Operation* user) {
      return isCoalesceOp(user) || isa<memref::DeallocOp>(user);
    });
    if (!usedByCoalesce || !onlyDeviceUsers)
      return rewriter.notifyMatchFailure(alloc, "not a buffer of coalesce ops alone");

    MemRefType type = alloc.getType();
    Location loc = alloc.getLoc();
    SmallVector<Value> extents;
    auto dynamicSizes = alloc.getDynamicSizes().begin();
    for (int64_t extent : type.getShape())
      extents.push_back(ShapedType::isDynamic(extent)
                            ? *dynamicSizes++
                            : arith::ConstantIndexOp::create(rewriter, loc, extent).getResult());
    MemRefType dynamic = dynamicLike(type);
    int rank = static_cast<int>(type.getRank());
    std::optional<::coalesce::Dtype> storage = storageDtype(type.getElementType());
    if (!storage) return rewriter.notifyMatchFailure(alloc, "no allocator for its element type");
    std::string allocName = names::alloc_entry(rank, *storage);
    std::string freeName = names::free_entry(rank, *storage);
    auto indexTypes = SmallVector<Type>(rank, rewriter.getIndexType());
    if (!declareEntry(rewriter, alloc, allocName,
                      rewriter.getFunctionType(indexTypes, {dynamic})) ||
        !declareEntry(rewriter, alloc, freeName, rewriter.getFunctionType({dynamic}, {})))
      return rewriter.notifyMatchFailure(alloc, "the module defines the allocator differently");

    Value raw = func::CallOp::create(rewriter, loc, allocName, TypeRange{dynamic}, extents)
                    .getResult(0);
    for (Operation* user : llvm::make_early_inc_range(buffer.getUsers())) {
      if (!isa<memref::DeallocOp>(user)) continue;
      rewriter.setInsertionPoint(user);
      rewriter.replaceOpWithNewOp<func::CallOp>(user, freeName, TypeRange(), ValueRange{raw});
    }
    rewriter.setInsertionPointAfterValue(raw);
    Value typed = raw;
    if (type != dynamic) typed = memref::CastOp::create(rewriter, loc, type, raw);
    rewriter.replaceOp(alloc, typed);
    return success();
  }
};

struct CoalesceLowerToLibraryPass
    : mlir::coalesce::impl::CoalesceLowerToLibraryBase<CoalesceLowerToLibraryPass> {
  void runOnOperation() override {
    if (failed(checkPreconditions())) return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateLowerToLibraryPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    WalkResult left = getOperation().walk([](Operation* op) {
      if (!isCoalesceOp(op)) return WalkResult::advance();
      op->emitError("could not be lowered to a library call");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted()) signalPassFailure();
  }

  LogicalResult checkPreconditions() {
    WalkResult result = getOperation().walk([&](Operation* op) {
      if (isCoalesceOp(op)) {
        ++numCalls;
        std::optional<::coalesce::Dtype> dtype = opDtype(op);
        if (!dtype) {
          op->emitError("operand #0 has element type ")
              << cast<MemRefType>(op->getOperand(0).getType()).getElementType()
              << ", which the runtime library does not take (f32, bf16, f16)";
          return WalkResult::interrupt();
        }
        const bool matmul = isa<MatmulOp, FusedMatmulOp>(op);
        if (!matmul && *dtype != ::coalesce::Dtype::f32) {
          op->emitError("computes in ")
              << ::coalesce::to_string(*dtype)
              << "; the runtime library's elementwise ops are f32 only: fuse it into its matmul "
                 "(coalesce-fuse-epilogue)";
          return WalkResult::interrupt();
        }
        // The runtime's act-and-multiply is a gated registry epilogue's (swiglu, geglu).
        if (auto glu = dyn_cast<GluOp>(op);
            glu && !registryEpilogue({false, false, true}, toCoreActivation(glu.getActivation()))) {
          op->emitError("applies ")
              << stringifyActivationKind(glu.getActivation())
              << " to gate pairs, which no gated epilogue of the registry does (the runtime library's glu "
                 "kernels are those of swiglu and geglu: glu silu, glu gelu)";
          return WalkResult::interrupt();
        }
        for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
          auto type = cast<MemRefType>(operand.getType());
          if (!type.getLayout().isIdentity()) {
            op->emitError("operand #")
                << index << " is not row-major contiguous (layout " << type.getLayout()
                << "); the runtime library takes row-major buffers";
            return WalkResult::interrupt();
          }
        }
      }
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!llvm::any_of(alloc->getUsers(), isCoalesceOp)) return WalkResult::advance();
        for (Operation* user : alloc->getUsers()) {
          if (isCoalesceOp(user) || isa<memref::DeallocOp>(user)) continue;
          alloc.emitError("is used by coalesce ops, so it lives on the GPU, and also by '")
              << user->getName() << "', which runs on the host";
          return WalkResult::interrupt();
        }
        ++numDeviceBuffers;
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

}  // namespace

void mlir::coalesce::populateLowerToLibraryPatterns(RewritePatternSet& patterns) {
  patterns.add<AllocOnDevice, LowerCoalesceOp>(patterns.getContext());
}
