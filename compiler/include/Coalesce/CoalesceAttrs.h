//===- CoalesceAttrs.h - coalesce dialect attributes ------------------------===//
// The epilogue enum, the tile-config and the target attributes (CoalesceAttrs.td).
#pragma once

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "kernels/simt_config.hpp"

#include "Coalesce/CoalesceEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Coalesce/CoalesceAttrs.h.inc"

#include <optional>

#include "kernels/names.hpp"

namespace mlir::coalesce {

/// The dialect's epilogue enum and the kernels' (kernels/names.hpp) name the same four chains.
::coalesce::Epilogue toCoreEpilogue(EpilogueKind kind);
EpilogueKind fromCoreEpilogue(::coalesce::Epilogue epilogue);

/// The dtype a memref element type is computed in: f32 -> f32, bf16 -> bf16; nullopt for
/// element types no kernel family computes in.
std::optional<::coalesce::Dtype> dtypeOf(Type elementType);

}  // namespace mlir::coalesce
