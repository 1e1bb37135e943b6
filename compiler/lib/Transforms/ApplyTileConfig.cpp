//===- ApplyTileConfig.cpp - attach a tile config to each fused matmul ------===//
// coalesce-apply-tile-config (Passes.td). The config comes from the `config` option, else from
// the tuning database's fastest legal measurement of any family, else from the families'
// built-in fallback lists. Every candidate is judged by its family's rules (the rule the tuner
// prunes with), so the pass never attaches a config the verifier would refuse.
#include "mlir/IR/PatternMatch.h"

#include "Coalesce/CoalesceOps.h"
#include "Coalesce/Passes.h"
#include "TuningDatabase.h"

namespace mlir::coalesce {
#define GEN_PASS_DEF_COALESCEAPPLYTILECONFIG
#include "Coalesce/Passes.h.inc"
}  // namespace mlir::coalesce

using namespace mlir;
using namespace mlir::coalesce;

namespace {

// What a config must fit: one kernel's problem and target. A shape unknown at compile time may
// turn out to be any, K = N = 1 included, so a config for it must fit the 1 x 1 x 1 problem.
struct KernelProblem {
  ::coalesce::Problem problem;  // extents -1 where dynamic
  ::coalesce::Target target;

  bool isStatic() const { return problem.m > 0 && problem.n > 0 && problem.k > 0; }

  // The family's rules, in the order the fused op's verifier applies them.
  ::coalesce::Verdict legality(const ::coalesce::Config& config) const {
    const ::coalesce::Family* family = ::coalesce::find_family(config.family);
    if (!family) return {::coalesce::Violation::shape, "the config's family is not registered"};
    if (::coalesce::Verdict v = family->supports(target); !v.ok()) return v;
    if (::coalesce::Verdict v = family->supports(problem.dtype); !v.ok()) return v;
    // The config's own rules before its resources are predicted: the prediction divides by
    // its sides (a name with bm0 once stopped the pass with SIGFPE).
    if (::coalesce::Verdict v = family->check(config); !v.ok()) return v;
    const int registers = family->predict(config, target.limits).registers;
    if (::coalesce::Verdict v = family->check(config, target.limits, registers); !v.ok()) return v;
    ::coalesce::Problem shape = problem;
    if (!isStatic()) shape.m = shape.n = shape.k = 1;
    return family->check_problem(config, shape);
  }

  std::string describe() const {
    auto extent = [](int e) { return e < 0 ? std::string("?") : std::to_string(e); };
    return extent(problem.m) + "x" + extent(problem.n) + "x" + extent(problem.k) + " " +
           std::string(::coalesce::to_string(problem.dtype)) + " " +
           std::string(::coalesce::to_string(problem.epilogue)) + " on " + target.arch();
  }
};

struct CoalesceApplyTileConfigPass
    : mlir::coalesce::impl::CoalesceApplyTileConfigBase<CoalesceApplyTileConfigPass> {
  using Base::Base;

  // Where configs come from in one run of the pass (a pass must stay copyable, so not members).
  struct Sources {
    std::optional<::coalesce::NamedConfig> named;
    std::unique_ptr<TuningDatabase> database;
  };

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Sources sources;
    std::optional<::coalesce::NamedConfig>& named = sources.named;
    std::unique_ptr<TuningDatabase>& database = sources.database;
    if (!config.empty()) {
      named = ::coalesce::parse_config_name(config);
      if (!named) {
        // An option error is one line: emitted at the module's location, not on the module
        // (which would print the whole module as a note).
        emitError(module.getLoc()) << "config '" << config << "' is not the name of a config of any family ("
                           << ::coalesce::family_names() << "; see coalesce::config_name)";
        return signalPassFailure();
      }
    }
    if (!db.empty()) {
      if (device.empty()) {
        emitError(module.getLoc()) << "db='" << db
                           << "' needs device=<name>, the device whose measurements to use";
        return signalPassFailure();
      }
      std::string error;
      database = TuningDatabase::open(db, error);
      if (!database) {
        emitError(module.getLoc()) << error;
        return signalPassFailure();
      }
    }

    SmallVector<Operation*> untiled;
    module.walk([&](Operation* op) {
      if (isa<MatmulOp>(op)) untiled.push_back(op);
      if (auto fused = dyn_cast<FusedMatmulOp>(op); fused && !fused.getTileAttr())
        untiled.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation* op : untiled) {
      FailureOr<::coalesce::Config> chosen = choose(op, sources);
      if (failed(chosen)) return signalPassFailure();
      auto tile = TileAttr::get(&getContext(), *chosen);
      if (auto fused = dyn_cast<FusedMatmulOp>(op)) {
        fused.setTileAttr(tile);
        continue;
      }
      // A matmul with a config is the kernel with the empty epilogue.
      auto matmul = cast<MatmulOp>(op);
      rewriter.setInsertionPoint(matmul);
      rewriter.replaceOpWithNewOp<FusedMatmulOp>(matmul, EpilogueKind::none, matmul.getA(),
                                                 matmul.getB(), Value(), matmul.getC(), tile,
                                                 TargetAttr(), matmul.getMathAttr());
    }
  }

  FailureOr<KernelProblem> problemOf(Operation* op) {
    auto fused = dyn_cast<FusedMatmulOp>(op);
    Value a = fused ? fused.getA() : cast<MatmulOp>(op).getA();
    Value b = fused ? fused.getB() : cast<MatmulOp>(op).getB();
    auto ta = cast<MemRefType>(a.getType()), tb = cast<MemRefType>(b.getType());
    std::optional<::coalesce::Dtype> dtype =
        dtypeOf(ta.getElementType(), fused ? fused.getMathAttr() : cast<MatmulOp>(op).getMathAttr());
    if (!dtype)
      return op->emitError("has element type ")
             << ta.getElementType() << ", which no kernel family computes (f32, bf16, f16)";
    // The ops' verifier has bounded every static extent by kMaxExtent, so each fits the int
    // the families' rules take.
    ::coalesce::Problem problem{coreExtent(ta.getDimSize(0)), coreExtent(tb.getDimSize(1)), coreExtent(ta.getDimSize(1)),
                                *dtype,
                                fused ? toCoreEpilogue(fused.getEpilogue()) : ::coalesce::Epilogue::none};
    return KernelProblem{problem, fused ? fused.getTargetOrDefault() : defaultTarget()};
  }

  FailureOr<::coalesce::Config> choose(Operation* op, const Sources& sources) {
    FailureOr<KernelProblem> kernel = problemOf(op);
    if (failed(kernel)) return failure();
    const ::coalesce::Problem& problem = kernel->problem;
    const std::optional<::coalesce::NamedConfig>& named = sources.named;
    const TuningDatabase* database = sources.database.get();

    if (named) {
      if (named->dtype != problem.dtype || named->epilogue != problem.epilogue)
        return op->emitError("config '")
               << config << "' is for " << ::coalesce::to_string(named->dtype) << " "
               << ::coalesce::to_string(named->epilogue) << ", but this op computes "
               << kernel->describe();
      ::coalesce::Verdict verdict = kernel->legality(named->config);
      if (!verdict.ok())
        return op->emitError("config '")
               << config << "' is not legal for " << kernel->describe() << " ("
               << ::coalesce::violation_name(verdict.violation) << "): " << verdict.why;
      ++numFromOption;
      return named->config;
    }

    // The fastest measured config of any family (the database ranks them by median).
    if (database && kernel->isStatic()) {
      std::vector<std::string> names;
      std::string error;
      if (!database->rankedConfigs(device, "", problem.m, problem.n, problem.k,
                                   std::string(::coalesce::to_string(problem.dtype)),
                                   std::string(::coalesce::to_string(problem.epilogue)), names, error))
        return op->emitError(error);
      for (const std::string& name : names) {
        std::optional<::coalesce::NamedConfig> measured = ::coalesce::parse_config_name(name);
        if (measured && measured->dtype == problem.dtype && measured->epilogue == problem.epilogue &&
            kernel->legality(measured->config).ok()) {
          ++numFromDatabase;
          return measured->config;
        }
      }
    }
    if (database)
      op->emitRemark("the tuning database has no legal config for ")
          << kernel->describe() << " on '" << device << "'; using the built-in fallback";

    // The fallback: the first legal built-in config of the registered families, in order.
    for (const ::coalesce::Family* family : ::coalesce::families())
      for (const ::coalesce::Config& candidate : family->builtin_configs(problem))
        if (kernel->legality(candidate).ok()) {
          ++numFallback;
          return candidate;
        }
    return op->emitError("no built-in config of any family (") << ::coalesce::family_names() << ") is legal for "
                                                                 << kernel->describe();
  }
};

}  // namespace
