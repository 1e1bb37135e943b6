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
