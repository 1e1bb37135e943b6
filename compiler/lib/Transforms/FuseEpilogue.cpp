//===- FuseEpilogue.cpp - fold epilogue chains into the matmul --------------===//
// coalesce-fuse-epilogue (Passes.td). Each rewrite folds one elementwise consumer (bias_add, an
// activation, the residual add, the gated glu) into the matmul or fused matmul that wrote its
// input, when a row of the epilogue registry computes the longer chain; the greedy driver
// repeats until the chain is one op. The intermediate buffer then has no reader left and
// disappears with its dealloc.
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

// A matmul or fused matmul seen as "A x B, then an epilogue, written to `out`".
struct Producer {
  Value a, b, bias, residual, out;
  EpilogueKind epilogue;
  TileConfigAttrInterface tile;
  TargetAttr target;
  MathKindAttr math;
};

std::optional<Producer> asProducer(Operation* op) {
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return Producer{matmul.getA(), matmul.getB(), Value(), Value(), matmul.getC(), EpilogueKind::none,
                    TileConfigAttrInterface(), TargetAttr(), matmul.getMathAttr()};
  if (auto fused = dyn_cast<FusedMatmulOp>(op))
    return Producer{fused.getA(), fused.getB(), fused.getBias(), fused.getResidual(), fused.getC(),
                    fused.getEpilogue(), fused.getTileAttr(), fused.getTargetAttr(), fused.getMathAttr()};
  return std::nullopt;
}

// What one unfused op adds to the chain of the matmul that wrote its input `product`: an operand
// the epilogue reads (a bias, a residual), an activation, or the gate. The registry's formula
// applies them in stages, C = R + act(acc + bias), a gated epilogue being the activation of the
// bare product: a step extends a chain only past the stage the chain has reached.
struct Step {
  Value product;
  Value bias, residual;
  ::coalesce::EpilogueReads adds{false, false, false};
  ::coalesce::Activation activation = ::coalesce::Activation::identity;
  int stage;
};
constexpr int kBiasStage = 1, kActivationStage = 2, kResidualStage = 3, kGatedStage = 4;

// The stage a registry row's chain has reached (nothing follows a gate).
int stageOf(const ::coalesce::EpilogueSpec& spec) {
  if (spec.reads.gated) return kGatedStage;
  if (spec.reads.residual) return kResidualStage;
  if (spec.activation != ::coalesce::Activation::identity) return kActivationStage;
  return spec.reads.column_bias ? kBiasStage : 0;
}

// The steps an op may be folded as: one per input that can be the product (either of an add's).
SmallVector<Step, 2> stepsOf(BiasAddOp op) {
  return {Step{op.getInput(), op.getBias(), Value(), {true, false, false}, ::coalesce::Activation::identity,
               kBiasStage}};
}
template <class ActivationOp>
SmallVector<Step, 2> stepsOf(ActivationOp op) {
  return {Step{op.getInput(), Value(), Value(), {false, false, false}, ActivationOp::kActivation, kActivationStage}};
}
SmallVector<Step, 2> stepsOf(AddOp op) {
  auto residualStep = [](Value product, Value residual) {
    return Step{product, Value(), residual, {false, true, false}, ::coalesce::Activation::identity, kResidualStage};
  };
  return {residualStep(op.getLhs(), op.getRhs()), residualStep(op.getRhs(), op.getLhs())};
}
SmallVector<Step, 2> stepsOf(GluOp op) {
  return {Step{op.getInput(), Value(), Value(), {false, false, true}, toCoreActivation(op.getActivation()),
               kActivationStage}};
}

// The epilogue algebra: the registry row computing the producer's chain extended by `step`, if
// one does (the row reading the union of both operands, with the step's activation or else the
// chain's), e.g.
//   none + bias_add -> bias       bias + silu -> bias_silu       bias_gelu + add -> bias_gelu_residual
//   none + glu silu -> swiglu     (none + relu, bias + add, bias_relu + add: no row)
std::optional<EpilogueKind> extendEpilogue(EpilogueKind producer, const Step& step) {
  const ::coalesce::EpilogueSpec& chain = ::coalesce::epilogue_spec(toCoreEpilogue(producer));
  if (stageOf(chain) >= step.stage) return std::nullopt;
  ::coalesce::EpilogueReads reads{chain.reads.column_bias || step.adds.column_bias,
                                  chain.reads.residual || step.adds.residual, chain.reads.gated || step.adds.gated};
  ::coalesce::Activation activation =
      step.activation != ::coalesce::Activation::identity ? step.activation : chain.activation;
  std::optional<::coalesce::Epilogue> fused = registryEpilogue(reads, activation);
  if (!fused) return std::nullopt;
  return fromCoreEpilogue(*fused);
}

// Whether `op` may write or free memory; an op that does not describe its effects may.
bool mayWriteMemory(Operation* op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  if (!effects) return true;
  return llvm::any_of(*effects, [](const MemoryEffects::EffectInstance& effect) {
    return isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect());
  });
}

// Folds one unfused op E (bias_add, an activation, add, glu) into its producer P:
//
//   P(A, B [, bias0]) -> T ; E(T [, bias1 | R]) -> Y   ==>   fused(A, B, bias0|bias1 [, R]) -> Y
//
// where the fused epilogue is extendEpilogue(P's, E's step). The fused op is placed where E
// was, so A, B, the bias and the residual are read later than before: no op in between may
// write memory. T must be a local alloc that only P writes and only E reads (or, when E writes
// T in place, ops after E), in one block, P before E; Y must be neither A nor B, and, since the
// kernel reads R while it writes Y, neither R; R must not be T itself.
template <class EpilogueOp>
struct FoldEpilogue : OpRewritePattern<EpilogueOp> {
  using OpRewritePattern<EpilogueOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(EpilogueOp consumer, PatternRewriter& rewriter) const override {
    LogicalResult folded = failure();
    for (const Step& step : stepsOf(consumer))
      if (succeeded(folded = fold(consumer, step, rewriter))) break;
    return folded;
  }

  LogicalResult fold(EpilogueOp consumer, const Step& step, PatternRewriter& rewriter) const {
    Value intermediate = step.product;
    auto alloc = intermediate.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return rewriter.notifyMatchFailure(consumer, "the input is not a local allocation");
    if (step.residual == intermediate)
      return rewriter.notifyMatchFailure(consumer, "the residual is the product itself");

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
    if (step.residual && output == step.residual)
      return rewriter.notifyMatchFailure(consumer, "the output is the residual, which the kernel reads");
    std::optional<EpilogueKind> epilogue = extendEpilogue(producer->epilogue, step);
    if (!epilogue)
      return rewriter.notifyMatchFailure(consumer, "no kernel epilogue computes this chain");

    rewriter.setInsertionPoint(consumer);
    FusedMatmulOp::create(rewriter, consumer.getLoc(), *epilogue, producer->a, producer->b,
                          step.bias ? step.bias : producer->bias, step.residual ? step.residual : producer->residual,
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
        if (isa<CoalesceDialect>(op->getDialect()) && !isa<MatmulOp, FusedMatmulOp>(op)) ++epiloguesAndAllocs.first;
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
  patterns.add<FoldEpilogue<BiasAddOp>, FoldEpilogue<ReluOp>, FoldEpilogue<GeluOp>, FoldEpilogue<GeluTanhOp>,
               FoldEpilogue<SiluOp>, FoldEpilogue<AddOp>, FoldEpilogue<GluOp>>(patterns.getContext());
}
