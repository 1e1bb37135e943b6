// libFuzzer target: coalesce IR text (the dialect's attribute and op parsers, then the verifier:
// compiler/lib/CoalesceAttrs.cpp, CoalesceOps.cpp), with the dialects coalesce-opt registers.
// Diagnostics are swallowed: a refusal is the expected answer to most inputs; a crash is not.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "Coalesce/CoalesceDialect.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static mlir::MLIRContext* context = [] {
    mlir::DialectRegistry registry;
    registry.insert<mlir::coalesce::CoalesceDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
                    mlir::memref::MemRefDialect>();
    auto* made = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    made->loadAllAvailableDialects();
    return made;
  }();
  mlir::ScopedDiagnosticHandler quiet(context, [](mlir::Diagnostic&) { return mlir::success(); });
  // MLIR's lexer reads up to a NUL past the end, as every file MemoryBuffer gives has: a
  // std::string supplies it (the fuzzer's bytes end without one).
  const std::string text(reinterpret_cast<const char*>(data), size);
  // parseSourceString verifies what it parsed; verify again to run the verifier on a module
  // whose parse succeeded but whose ops were built without one (none today; cheap).
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, context);
  if (module) (void)mlir::verify(*module);
  return 0;
}
