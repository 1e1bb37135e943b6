//===- TestTileBudget.cpp - expose a tile config's budget as remarks --------===//
// coalesce-test-tile-budget (Passes.td): test only. Every figure comes from the config's family
// plug-in (kernels/core/family.hpp), so FileCheck tests pin the model the tuner prunes with.
#include "Coalesce/CoalesceOps.h"
#include "Coalesce/Passes.h"

namespace mlir::coalesce {
#define GEN_PASS_DEF_COALESCETESTTILEBUDGET
#include "Coalesce/Passes.h.inc"
}  // namespace mlir::coalesce

using namespace mlir;
using namespace mlir::coalesce;

namespace {

struct CoalesceTestTileBudgetPass
    : mlir::coalesce::impl::CoalesceTestTileBudgetBase<CoalesceTestTileBudgetPass> {
  void runOnOperation() override {
    getOperation().walk([](FusedMatmulOp op) {
      TileConfigAttrInterface tile = op.getTileAttr();
      if (!tile) return;
      const ::coalesce::Config config = tile.getConfig();
      const ::coalesce::Family& family = *::coalesce::find_family(config.family);
      const ::coalesce::DeviceLimits limits = op.getTargetOrDefault().limits;
      const ::coalesce::Resources r = family.predict(config, limits);
      InFlightDiagnostic remark = op.emitRemark() << config.family << " tile: ";
      remark << r.threads << " threads, " << r.smem_bytes << " of " << limits.smem_per_block_optin
             << " B shared memory, " << r.registers << " registers/thread (predicted, cap " << r.register_cap << "), "
             << r.blocks_per_sm
             << " blocks/SM";
      const ::coalesce::Problem problem = op.getProblem();
      if (problem.m > 0 && problem.n > 0 && problem.k > 0)
        remark << ", grid " << family.geometry(config, problem, op.getTargetOrDefault()).blocks() << " blocks";
    });
  }
};

}  // namespace
