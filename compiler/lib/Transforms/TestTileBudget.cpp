//===- TestTileBudget.cpp - expose a tile config's budget as remarks --------===//
// coalesce-test-tile-budget (Passes.td): test only. Every figure comes from
// coalesce::SimtConfig, so FileCheck tests pin the model the tuner prunes with.
#include "Coalesce/CoalesceOps.h"
#include "Coalesce/Passes.h"
#include "kernels/names.hpp"

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
      TileAttr tile = op.getTileAttr();
      if (!tile) return;
      ::coalesce::SimtConfig config = tile.getSimtConfig();
      ::coalesce::DeviceLimits limits = op.getDeviceLimits();
      int registers = config.predicted_registers();
      InFlightDiagnostic remark = op.emitRemark("simt tile: ");
      remark << config.threads() << " threads, " << config.smem_bytes() << " of "
             << limits.smem_per_block_optin << " B shared memory, " << registers
             << " registers/thread (predicted, cap " << config.register_cap(limits.regs_per_sm)
             << "), " << config.blocks_per_sm(limits, registers) << " blocks/SM";
      auto a = cast<MemRefType>(op.getA().getType());
      auto b = cast<MemRefType>(op.getB().getType());
      if (a.hasStaticShape() && b.hasStaticShape())
        remark << ", grid "
               << ::coalesce::simt_grid_blocks(config, a.getDimSize(0), b.getDimSize(1))
               << " blocks";
    });
  }
};

}  // namespace
