//===- CoalesceAttrs.cpp - epilogue, tile-config and target attributes ------===//
// The attributes delegate validity to kernels/simt_config.hpp: nothing here re-states a rule.
#include "Coalesce/CoalesceAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include "Coalesce/CoalesceDialect.h"

using namespace mlir;
using namespace mlir::coalesce;

#include "Coalesce/CoalesceEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Coalesce/CoalesceAttrs.cpp.inc"

void CoalesceDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Coalesce/CoalesceAttrs.cpp.inc"
      >();
}

namespace mlir::coalesce {

::coalesce::Epilogue toCoreEpilogue(EpilogueKind kind) {
  switch (kind) {
    case EpilogueKind::none: return ::coalesce::Epilogue::none;
    case EpilogueKind::bias: return ::coalesce::Epilogue::bias;
    case EpilogueKind::bias_relu: return ::coalesce::Epilogue::bias_relu;
    case EpilogueKind::bias_gelu: return ::coalesce::Epilogue::bias_gelu;
  }
  llvm_unreachable("every EpilogueKind is handled");
}

EpilogueKind fromCoreEpilogue(::coalesce::Epilogue epilogue) {
  switch (epilogue) {
    case ::coalesce::Epilogue::none: return EpilogueKind::none;
    case ::coalesce::Epilogue::bias: return EpilogueKind::bias;
    case ::coalesce::Epilogue::bias_relu: return EpilogueKind::bias_relu;
    case ::coalesce::Epilogue::bias_gelu: return EpilogueKind::bias_gelu;
  }
  llvm_unreachable("every coalesce::Epilogue is handled");
}

std::optional<::coalesce::Dtype> dtypeOf(Type elementType) {
  if (elementType.isF32()) return ::coalesce::Dtype::f32;
  if (elementType.isBF16()) return ::coalesce::Dtype::bf16;
  return std::nullopt;
}

}  // namespace mlir::coalesce

::coalesce::SimtConfig TileAttr::getSimtConfig() const {
  return {getBm(), getBn(), getBk(), getWm(), getWn(), getTm(), getTn(),
          getStages(), getVec(), getGroupM(), getMinBlocks()};
}

TileAttr TileAttr::get(MLIRContext* context, const ::coalesce::SimtConfig& c) {
  return get(context, TileFamily::simt, c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.stages,
             c.vec, c.group_m, c.min_blocks);
}

// A config is legal for its family by SimtConfig::check() alone; the device limits and the
// problem are the fused op's to check, since only the op knows its target and shapes.
LogicalResult TileAttr::verify(function_ref<InFlightDiagnostic()> emitError, TileFamily family,
                               int32_t bm, int32_t bn, int32_t bk, int32_t wm, int32_t wn,
                               int32_t tm, int32_t tn, int32_t stages, int32_t vec,
                               int32_t groupM, int32_t minBlocks) {
  ::coalesce::SimtConfig config{bm, bn, bk, wm, wn, tm, tn, stages, vec, groupM, minBlocks};
  ::coalesce::Verdict verdict = config.check();
  if (!verdict.ok())
    return emitError() << "invalid " << stringifyTileFamily(family) << " tile config ("
                       << ::coalesce::violation_name(verdict.violation) << "): " << verdict.why;
  return success();
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, int32_t sm,
                                 int32_t smemPerBlock, int32_t regsPerSm) {
  if (sm <= 0 || smemPerBlock <= 0 || regsPerSm <= 0)
    return emitError() << "target sm, smem_per_block and regs_per_sm must be positive";
  return success();
}

::coalesce::DeviceLimits TargetAttr::getDeviceLimits() const {
  ::coalesce::DeviceLimits limits;
  limits.smem_per_block_optin = getSmemPerBlock();
  limits.smem_per_sm = getSmemPerBlock() + 1024;
  limits.regs_per_sm = getRegsPerSm();
  return limits;
}
