//===- CoalesceDialect.cpp - the coalesce dialect ---------------------------===//
#include "Coalesce/CoalesceDialect.h"

#include "Coalesce/CoalesceAttrs.h"
#include "Coalesce/CoalesceOps.h"

using namespace mlir;
using namespace mlir::coalesce;

#include "Coalesce/CoalesceOpsDialect.cpp.inc"

void CoalesceDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Coalesce/CoalesceOps.cpp.inc"
      >();
  registerAttributes();
}
