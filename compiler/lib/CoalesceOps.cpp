//===- CoalesceOps.cpp - coalesce dialect ops and verifiers -----------------===//
#include "Coalesce/CoalesceOps.h"

using namespace mlir;
using namespace mlir::coalesce;

#define GET_OP_CLASSES
#include "Coalesce/CoalesceOps.cpp.inc"

// A (MxK) x B (KxN) -> C (MxN): ranks, element types and the three shared extents must agree.
LogicalResult MatmulOp::verify() {
  auto a = cast<MemRefType>(getA().getType());
  auto b = cast<MemRefType>(getB().getType());
  auto c = cast<MemRefType>(getC().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("expects 2-D memrefs for A, B and C");
  if (a.getElementType() != b.getElementType() || a.getElementType() != c.getElementType())
    return emitOpError("expects A, B and C to have the same element type");
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError("expects A's columns (K = ") << a.getDimSize(1) << ") to equal B's rows ("
                                                     << b.getDimSize(0) << ")";
  if (a.getDimSize(0) != c.getDimSize(0) || b.getDimSize(1) != c.getDimSize(1))
    return emitOpError("expects C to be ") << a.getDimSize(0) << "x" << b.getDimSize(1);
  return success();
}
