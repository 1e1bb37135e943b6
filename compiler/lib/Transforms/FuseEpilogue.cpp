//===- FuseEpilogue.cpp - fold bias/ReLU/GELU chains into the matmul --------===//
// coalesce-fuse-epilogue (Passes.td). Each rewrite folds one elementwise consumer into the
// matmul or fused matmul that wrote its input; the greedy driver repeats until the chain is one
// op. The intermediate buffer then has no reader left and disappears with its dealloc.
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "Coalesce/CoalesceOps.h"
#include "Coalesce/Passes.h"

namespace mlir::coalesce {
#define GEN_PASS_DEF_COALESCEFUSEEPILOGUE
#include "Coalesce/Passes.h.inc"
}  // namespace mlir::coalesce

using namespace mlir;
using namespace mlir::coalesce;

namespace {

// The epilogue algebra: the chain a producer computes, extended by one consumer, when some
// kernel epilogue (kernels/epilogue.cuh) computes the result; nullopt otherwise.
//   none + bias_add -> bias      bias + relu -> bias_relu      bias + gelu -> bias_gelu
std::optional<EpilogueKind> extendEpilogue(EpilogueKind producer, Operation* consumer) {
  if (isa<BiasAddOp>(consumer) && producer == EpilogueKind::none) return EpilogueKind::bias;
  if (isa<ReluOp>(consumer) && producer == EpilogueKind::bias) return EpilogueKind::bias_relu;
  if (isa<GeluOp>(consumer) && producer == EpilogueKind::bias) return EpilogueKind::bias_gelu;
  return std::nullopt;
}

// A matmul or fused matmul seen as "A x B, then an epilogue, written to `out`".
struct Producer {
  Value a, b, bias, out;
  EpilogueKind epilogue;
  TileConfigAttrInterface tile;
  TargetAttr target;
  MathKindAttr math;
};

std::optional<Producer> asProducer(Operation* op) {
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return Producer{matmul.getA(), matmul.getB(), Value(), matmul.getC(), EpilogueKind::none,
                    TileConfigAttrInterface(), TargetAttr(), matmul.getMathAttr()};
  if (auto fused = dyn_cast<FusedMatmulOp>(op))
    return Producer{fused.getA(),        fused.getB(),        fused.getBias(),
                    fused.getC(),        fused.getEpilogue(), fused.getTileAttr(),
                    fused.getTargetAttr(), fused.getMathAttr()};
  return std::nullopt;
}

// Whether `op` may write or free memory; an op that does not describe its effects may.
bool mayWriteMemory(Operation* op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  if (!effects) return true;
  return llvm::any_of(*effects, [](const MemoryEffects::EffectInstance& effect) {
    return isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect());
  });
}

// Folds one epilogue op (bias_add, relu or gelu) into its producer:
//
//   P(A, B [, bias0]) -> T ; E(T [, bias1]) -> Y   ==>   fused(A, B, bias0|bias1) -> Y
//
// where the fused epilogue is extendEpilogue(P's, E). The fused op is placed where E was, so
// A, B and the producer's bias are read later than before: no op in between may write memory.
// T must be a local alloc that only P writes and only E reads (or, when E writes T in place,
// ops after E), in one block, P before E.
template <class EpilogueOp>
struct FoldEpilogue : OpRewritePattern<EpilogueOp> {
  using OpRewritePattern<EpilogueOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(EpilogueOp consumer, PatternRewriter& rewriter) const override {
    Value intermediate = consumer.getInput();
    auto alloc = intermediate.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return rewriter.notifyMatchFailure(consumer, "the input is not a local allocation");

    // Users after an in-place consumer (Y = T) read its result, which the fused op writes to
    // T as well; any other user would see the product the fusion no longer stores.
    Value output = consumer.getOutput();
    auto readsResult = [&](Operation* user) {
      Operation* ancestor = consumer->getBlock()->findAncestorOpInBlock(*user);
      return output == intermediate && ancestor && consumer->isBeforeInBlock(ancestor);
    };
    Operation* producerOp = nullptr;
    for (Operation* user : intermediate.getUsers()) {
      if (user == consumer.getOperation() || isa<memref::DeallocOp>(user) || readsResult(user))
        continue;
      if (producerOp && producerOp != user)
        return rewriter.notifyMatchFailure(consumer, "the intermediate has another user");
      producerOp = user;
    }
    std::optional<Producer> producer = producerOp ? asProducer(producerOp) : std::nullopt;
    if (!producer || producer->out != intermediate)
      return rewriter.notifyMatchFailure(consumer, "the input is not written by a matmul");
    if (producerOp->getBlock() != consumer->getBlock())
      return rewriter.notifyMatchFailure(consumer, "the producer is in another block");
    if (!producerOp->isBeforeInBlock(consumer))
      return rewriter.notifyMatchFailure(consumer, "the producer does not precede the consumer");
    for (Operation* op = producerOp->getNextNode(); op != consumer.getOperation();
         op = op->getNextNode())
      if (mayWriteMemory(op))
        return rewriter.notifyMatchFailure(consumer, "an op between the two may write memory");
    if (output == producer->a || output == producer->b)
      return rewriter.notifyMatchFailure(consumer, "the output is an input of the matmul");
    std::optional<EpilogueKind> epilogue = extendEpilogue(producer->epilogue, consumer);
    if (!epilogue)
      return rewriter.notifyMatchFailure(consumer, "no kernel epilogue computes this chain");

    Value bias = producer->bias;
    if constexpr (std::is_same_v<EpilogueOp, BiasAddOp>) bias = consumer.getBias();
    rewriter.setInsertionPoint(consumer);
    FusedMatmulOp::create(rewriter, consumer.getLoc(), *epilogue, producer->a, producer->b, bias,
                          output, producer->tile, producer->target, producer->math);
    rewriter.eraseOp(consumer);
    rewriter.eraseOp(producerOp);

    // The consumer may have written in place (Y = T): then T is the result and stays.
    if (llvm::all_of(intermediate.getUsers(),
                     [](Operation* user) { return isa<memref::DeallocOp>(user); })) {
      for (Operation* dealloc : llvm::make_early_inc_range(intermediate.getUsers()))
        rewriter.eraseOp(dealloc);
      rewriter.eraseOp(alloc);
    }
    return success();
  }
};

struct CoalesceFuseEpiloguePass
    : mlir::coalesce::impl::CoalesceFuseEpilogueBase<CoalesceFuseEpiloguePass> {
  void runOnOperation() override {
    auto countOps = [&] {
      std::pair<int64_t, int64_t> epiloguesAndAllocs{0, 0};
      getOperation().walk([&](Operation* op) {
        if (isa<BiasAddOp, ReluOp, GeluOp>(op)) ++epiloguesAndAllocs.first;
        if (isa<memref::AllocOp>(op)) ++epiloguesAndAllocs.second;
      });
      return epiloguesAndAllocs;
    };
    auto before = countOps();
    RewritePatternSet patterns(&getContext());
    populateFuseEpiloguePatterns(patterns);
    // Fusion only: no folding, constant hoisting or region simplification of unrelated IR.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    auto after = countOps();
    numEpiloguesFused += before.first - after.first;
    numBuffersErased += before.second - after.second;
  }
};

}  // namespace

void mlir::coalesce::populateFuseEpiloguePatterns(RewritePatternSet& patterns) {
  patterns.add<FoldEpilogue<BiasAddOp>, FoldEpilogue<ReluOp>, FoldEpilogue<GeluOp>>(
      patterns.getContext());
}
