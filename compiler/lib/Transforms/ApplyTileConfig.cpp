//===- ApplyTileConfig.cpp - attach a tile config to each fused matmul ------===//
// coalesce-apply-tile-config (Passes.td). The config comes from the `config` option, else from
// the tuning database's fastest legal measurement, else from the built-in fallback list. Every
// candidate is judged by coalesce::SimtConfig::check(limits) and check_problem(M, N, K), the
// rule the tuner prunes with, so the pass never attaches a config the verifier would refuse.
#include "mlir/IR/PatternMatch.h"

#include "Coalesce/BuiltinConfigs.h"
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

// What a config must fit: one kernel's problem and target.
struct KernelProblem {
  int64_t m, n, k;
  ::coalesce::Dtype dtype;
  ::coalesce::Epilogue epilogue;
  ::coalesce::DeviceLimits limits;

  bool isStatic() const {
    return !ShapedType::isDynamic(m) && !ShapedType::isDynamic(n) && !ShapedType::isDynamic(k);
  }
  // A shape unknown at compile time may turn out to be any, K = N = 1 included, so a config
  // for it must fit the 1 x 1 x 1 problem.
  ::coalesce::Verdict legality(const ::coalesce::SimtConfig& config) const {
    ::coalesce::Verdict verdict = config.check(limits);
    if (!verdict.ok()) return verdict;
    return isStatic() ? config.check_problem(m, n, k) : config.check_problem(1, 1, 1);
  }
  int firstLegalBuiltin() const {
    return isStatic() ? ::coalesce::builtin::first_legal(limits, m, n, k)
                      : ::coalesce::builtin::first_legal(limits, 1, 1, 1);
  }
  std::string describe() const {
    auto extent = [](int64_t e) { return ShapedType::isDynamic(e) ? std::string("?") : std::to_string(e); };
    return extent(m) + "x" + extent(n) + "x" + extent(k) + " " +
           std::string(::coalesce::to_string(dtype)) + " " +
           std::string(::coalesce::to_string(epilogue));
  }
};

struct CoalesceApplyTileConfigPass
    : mlir::coalesce::impl::CoalesceApplyTileConfigBase<CoalesceApplyTileConfigPass> {
  using Base::Base;

  // Where configs come from in one run of the pass (a pass must stay copyable, so not members).
  struct Sources {
    std::optional<::coalesce::NamedSimtConfig> named;
    std::unique_ptr<TuningDatabase> database;
  };

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Sources sources;
    std::optional<::coalesce::NamedSimtConfig>& named = sources.named;
    std::unique_ptr<TuningDatabase>& database = sources.database;
    if (!config.empty()) {
      named = ::coalesce::parse_config_name(config);
      if (!named) {
        module.emitError() << "config '" << config
                           << "' is not a simt config name (see coalesce::config_name)";
        return signalPassFailure();
      }
    }
    if (!db.empty()) {
      if (device.empty()) {
        module.emitError() << "db='" << db
                           << "' needs device=<name>, the device whose measurements to use";
        return signalPassFailure();
      }
      std::string error;
      database = TuningDatabase::open(db, error);
      if (!database) {
        module.emitError() << error;
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
      FailureOr<::coalesce::SimtConfig> chosen = choose(op, sources);
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
                                                 TargetAttr());
    }
  }

  FailureOr<KernelProblem> problemOf(Operation* op) {
    auto fused = dyn_cast<FusedMatmulOp>(op);
    Value a = fused ? fused.getA() : cast<MatmulOp>(op).getA();
    Value b = fused ? fused.getB() : cast<MatmulOp>(op).getB();
    auto ta = cast<MemRefType>(a.getType()), tb = cast<MemRefType>(b.getType());
    std::optional<::coalesce::Dtype> dtype = dtypeOf(ta.getElementType());
    if (dtype != ::coalesce::Dtype::f32)
      return op->emitError("has element type ")
             << ta.getElementType() << "; the simt family computes in f32 only";
    return KernelProblem{ta.getDimSize(0),
                         tb.getDimSize(1),
                         ta.getDimSize(1),
                         *dtype,
                         fused ? toCoreEpilogue(fused.getEpilogue()) : ::coalesce::Epilogue::none,
                         fused ? fused.getDeviceLimits() : ::coalesce::DeviceLimits{}};
  }

  FailureOr<::coalesce::SimtConfig> choose(Operation* op, const Sources& sources) {
    FailureOr<KernelProblem> problem = problemOf(op);
    if (failed(problem)) return failure();
    const std::optional<::coalesce::NamedSimtConfig>& named = sources.named;
    const TuningDatabase* database = sources.database.get();

    if (named) {
      if (named->dtype != problem->dtype || named->epilogue != problem->epilogue)
        return op->emitError("config '")
               << config << "' is for " << ::coalesce::to_string(named->dtype) << " "
               << ::coalesce::to_string(named->epilogue) << ", but this op computes "
               << problem->describe();
      ::coalesce::Verdict verdict = problem->legality(named->config);
      if (!verdict.ok())
        return op->emitError("config '")
               << config << "' is not legal for " << problem->describe() << " on its target ("
               << ::coalesce::violation_name(verdict.violation) << "): " << verdict.why;
      ++numFromOption;
      return named->config;
    }

    if (database && problem->isStatic()) {
      std::vector<std::string> names;
      std::string error;
      if (!database->rankedConfigs(device, "simt", problem->m, problem->n, problem->k,
                                   std::string(::coalesce::to_string(problem->dtype)),
                                   std::string(::coalesce::to_string(problem->epilogue)), names,
                                   error))
        return op->emitError(error);
      for (const std::string& name : names) {
        std::optional<::coalesce::NamedSimtConfig> measured = ::coalesce::parse_config_name(name);
        if (measured && measured->dtype == problem->dtype &&
            measured->epilogue == problem->epilogue && problem->legality(measured->config).ok()) {
          ++numFromDatabase;
          return measured->config;
        }
      }
    }
    if (database)
      op->emitRemark("the tuning database has no legal simt config for ")
          << problem->describe() << " on '" << device << "'; using the built-in fallback";

    int index = problem->firstLegalBuiltin();
    if (index < 0)
      return op->emitError("no built-in simt config is legal for ")
             << problem->describe() << " on its target";
    ++numFallback;
    return ::coalesce::builtin::kConfigs[index];
  }
};

}  // namespace
