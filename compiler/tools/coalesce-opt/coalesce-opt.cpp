//===- coalesce-opt.cpp - the coalesce optimizer driver ---------------------===//
// mlir-opt with the coalesce dialect and its passes registered.
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include "Coalesce/CoalesceDialect.h"
#include "Coalesce/Passes.h"
#include "coalesce/version.h"
#include "common/OutputGuard.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::coalesce::CoalesceDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::memref::MemRefDialect>();
  mlir::coalesce::registerCoalescePasses();
  // --version names Coalesce's version and revision after LLVM's, as every Coalesce tool does.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream& os) {
    os << "Coalesce " << COALESCE_VERSION << " (git " << COALESCE_GIT_REVISION << ")\n";
  });
  auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, "coalesce optimizer driver\n", registry);
  std::vector<coalesce::tools::ReadFile> reads = coalesce::tools::tuning_databases(argc, argv);
  reads.push_back({input, "the input"});
  if (coalesce::tools::output_is_an_input("coalesce-opt", output, reads)) return 1;
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
}
