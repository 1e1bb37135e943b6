//===- CoalesceAttrs.h - coalesce dialect attributes ------------------------===//
// The epilogue enum, the tile-config interface and attribute, and the target attribute
// (CoalesceAttrs.td).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "kernels/core/epilogues.hpp"
#include "kernels/core/family.hpp"

#include "Coalesce/CoalesceEnums.h.inc"

#include "Coalesce/CoalesceAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Coalesce/CoalesceAttrs.h.inc"

namespace mlir::coalesce {

/// The dialect's epilogue enum and the kernels' (kernels/core/types.hpp) name the registry's epilogues.
::coalesce::Epilogue toCoreEpilogue(EpilogueKind kind);
EpilogueKind fromCoreEpilogue(::coalesce::Epilogue epilogue);

/// The registry's activation an ActivationKind names (the same numbering), and back (nullopt
/// for the identity, which no op applies).
::coalesce::Activation toCoreActivation(ActivationKind kind);
std::optional<ActivationKind> fromCoreActivation(::coalesce::Activation activation);

/// The registry epilogue (kernels/core/epilogues.hpp) that reads exactly `reads` and applies
/// `activation`, or nullopt where no row does: what a chain of unfused ops fuses into.
std::optional<::coalesce::Epilogue> registryEpilogue(::coalesce::EpilogueReads reads,
                                                     ::coalesce::Activation activation);

/// The dtype of a matmul on memrefs of `elementType` with the optional math mode: f32 -> f32
/// (tf32 with math tf32), bf16 -> bf16, f16 -> f16; nullopt for element types no kernel family
/// computes in, or a math mode the element type has not (TF32 of 16-bit data).
std::optional<::coalesce::Dtype> dtypeOf(Type elementType, MathKindAttr math = {});

/// The target of ops without a `target` attribute: the H200 (sm_90a, DeviceLimits' defaults).
::coalesce::Target defaultTarget();

}  // namespace mlir::coalesce
