//===- ApplyTileConfig.cpp - attach a tile config to each fused matmul ------===//
// coalesce-apply-tile-config (Passes.td). The config comes from the `config` option, else from
// the tuning database's fastest legal measurement of any family, else from the families'
// built-in fallback lists. Every candidate is judged by its family's rules (the rule the tuner
// prunes with), so the pass never attaches a config the verifier would refuse.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

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
    // Whether its kernels read the epilogue's operands and store it (a residual, a gate), whatever
    // the shape; a gated N's parity is the op verifier's.
    if (::coalesce::Verdict v = ::coalesce::supports_epilogue(*family, problem.epilogue); !v.ok()) return v;
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

// The models of this machine's NVIDIA GPUs as the driver names them, each once, sorted; empty
// without the driver. Read from /proc/driver/nvidia/gpus/<bus id>/information ("Model: NVIDIA
// H200") rather than through CUDA, so the tools link no CUDA library and start on the CPU
// machines. COALESCE_TEST_NVIDIA_PROC names another directory of that layout (the lit tests of a
// machine with a GPU run on the CPU machines with it).
std::vector<std::string> localGpuModels() {
  const char* override = std::getenv("COALESCE_TEST_NVIDIA_PROC");
  std::filesystem::path root = override ? override : "/proc/driver/nvidia/gpus";
  std::vector<std::string> models;
  std::error_code ec;
  for (const auto& gpu : std::filesystem::directory_iterator(root, ec)) {
    std::ifstream information(gpu.path() / "information");
    for (std::string line; std::getline(information, line);) {
      llvm::StringRef text(line);
      if (!text.consume_front("Model:")) continue;
      std::string model = text.trim().str();
      if (!model.empty() && std::find(models.begin(), models.end(), model) == models.end())
        models.push_back(model);
    }
  }
  std::sort(models.begin(), models.end());
  return models;
}

std::string quotedList(llvm::ArrayRef<std::string> names) {
  if (names.empty()) return "none";
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "'" : ", '") + name + "'";
  return list;
}

// The stored device `asked` names: the stored name equal to it (case aside), else the one stored
// name containing it (case aside), so `H200` finds 'NVIDIA H200'. No match and several matches
// are errors naming the candidates: a name that finds no measurements must never silently fall
// back to a built-in config (issue 38). `what` says where the name came from.
std::optional<std::string> resolveDevice(const std::string& asked, llvm::ArrayRef<std::string> stored,
                                         const std::string& db, const std::string& what,
                                         std::string& error) {
  for (const std::string& name : stored)
    if (llvm::StringRef(name).equals_insensitive(asked)) return name;
  std::vector<std::string> matches;
  for (const std::string& name : stored)
    if (llvm::StringRef(name).contains_insensitive(asked)) matches.push_back(name);
  if (matches.size() == 1) return matches.front();
  if (matches.empty())
    error = what + " '" + asked + "' matches no device of tuning database '" + db +
            "' (stored: " + quotedList(stored) + ")";
  else
    error = what + " '" + asked + "' matches several devices of tuning database '" + db + "' (" +
            quotedList(matches) + "); name one with device=<name>";
  return std::nullopt;
}

// The device whose measurements a database run reads: `device=` resolved against the stored
// names; without it, this machine's GPU model, or on a machine without a GPU the database's only
// device. Every other case is an error listing the stored names.
std::optional<std::string> chooseDevice(const std::string& device, const TuningDatabase& database,
                                        const std::string& db, std::string& error) {
  std::vector<std::string> stored;
  if (!database.deviceNames(stored, error)) return std::nullopt;
  if (!device.empty()) return resolveDevice(device, stored, db, "device", error);
  std::vector<std::string> local = localGpuModels();
  if (local.size() == 1) return resolveDevice(local.front(), stored, db, "this machine's GPU", error);
  if (local.size() > 1) {
    error = "this machine has GPUs of several models (" + quotedList(local) +
            "); name the one whose measurements to use with device=<name>";
    return std::nullopt;
  }
  if (stored.size() == 1) return stored.front();
  error = stored.empty() ? "tuning database '" + db + "' has no device's measurements"
                         : "tuning database '" + db + "' holds several devices (" + quotedList(stored) +
                               "); name one with device=<name>";
  return std::nullopt;
}

struct CoalesceApplyTileConfigPass
    : mlir::coalesce::impl::CoalesceApplyTileConfigBase<CoalesceApplyTileConfigPass> {
  using Base::Base;

  // Where configs come from in one run of the pass (a pass must stay copyable, so not members).
  struct Sources {
    std::optional<::coalesce::NamedConfig> named;
    std::unique_ptr<TuningDatabase> database;
    std::string device;  ///< the stored name of the device the database is read for
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
      std::string error;
      database = TuningDatabase::open(db, error);
      std::optional<std::string> stored;
      if (database) stored = chooseDevice(device, *database, db, error);
      if (!stored) {
        emitError(module.getLoc()) << error;
        return signalPassFailure();
      }
      sources.device = *stored;
    }
    if (db.empty() && !device.empty()) {
      emitError(module.getLoc()) << "device='" << device
                                 << "' names whose measurements to read, but no db=<path> is given";
      return signalPassFailure();
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
                                                 matmul.getB(), Value(), Value(), matmul.getC(), tile,
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
      if (!database->rankedConfigs(sources.device, "", problem.m, problem.n, problem.k,
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
          << kernel->describe() << " on '" << sources.device << "'; using the built-in fallback";

    // The fallback: the first legal built-in config of the registered families, in order. With
    // none, the op gets no config rather than one that cannot run, and the error says each
    // family's reason, as a sweep of the problem does (issue 39).
    std::string reasons;
    for (const ::coalesce::Family* family : ::coalesce::families()) {
      std::string why = "it has no built-in config";
      bool judged = false;
      for (const ::coalesce::Config& candidate : family->builtin_configs(problem)) {
        const ::coalesce::Verdict verdict = kernel->legality(candidate);
        if (verdict.ok()) {
          ++numFallback;
          return candidate;
        }
        if (!judged) why = std::string(::coalesce::violation_name(verdict.violation)) + ": " + verdict.why;
        judged = true;
      }
      reasons += "; " + std::string(family->name()) + ": " + why;
    }
    return op->emitError("no built-in config of any family (") << ::coalesce::family_names() << ") is legal for "
                                                                 << kernel->describe() << reasons;
  }
};

}  // namespace
