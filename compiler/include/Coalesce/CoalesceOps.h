//===- CoalesceOps.h - coalesce dialect ops ---------------------------------===//
#pragma once

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Coalesce/CoalesceAttrs.h"
#include "Coalesce/CoalesceDialect.h"

#define GET_OP_CLASSES
#include "Coalesce/CoalesceOps.h.inc"

namespace mlir::coalesce {

/// The largest static extent (M, N, K, a bias's length) a coalesce op accepts: the tools'
/// `--shape` limit (kernels/core/problem.hpp kMaxExtent, 2^20). The kernels and the runtime take
/// extents as int and compute `(M + BM - 1) / BM` and grid sizes in int, so an extent must stay
/// well inside int; the compiler accepts no extent the tuner and harness could not have
/// measured. Element counts are not limited here: a kernel family's rules judge whether its
/// offsets hold them (issue 39: simt's `index_bits`, mma's 64-bit offsets).
inline constexpr int64_t kMaxExtent = ::coalesce::kMaxExtent;

/// An extent as messages print it: `?` when dynamic.
std::string extentString(int64_t extent);
/// A memref's shape as messages print it, e.g. `64x?`.
std::string shapeString(MemRefType type);
/// A static extent as the kernels' core Problem holds it (int; -1 where dynamic). Only for ops
/// that passed their verifier, which bounds static extents by kMaxExtent.
int coreExtent(int64_t extent);

}  // namespace mlir::coalesce
