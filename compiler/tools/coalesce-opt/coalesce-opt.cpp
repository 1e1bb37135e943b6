//===- coalesce-opt.cpp - the coalesce optimizer driver ---------------------===//
// mlir-opt with the coalesce dialect and its passes registered.
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "Coalesce/CoalesceDialect.h"
#include "Coalesce/Passes.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::coalesce::CoalesceDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::memref::MemRefDialect>();
  mlir::coalesce::registerCoalescePasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "coalesce optimizer driver\n", registry));
}
