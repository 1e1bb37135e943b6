//===- CoalesceDialect.h - the coalesce dialect -----------------------------===//
#pragma once

#include "mlir/IR/Dialect.h"

#include "Coalesce/CoalesceOpsDialect.h.inc"
