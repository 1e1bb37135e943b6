//===- coalesce-translate.cpp - coalesce IR to CUDA C++ ---------------------===//
// mlir-translate with the coalesce translations: --mlir-to-cuda (kernels, for NVRTC) and
// --mlir-to-cuda-host (kernels and the runtime entry points that launch them, for nvcc).
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include "Coalesce/CudaEmitter.h"
#include "coalesce/version.h"

int main(int argc, char** argv) {
  mlir::coalesce::registerCudaTranslations();
  // --version names Coalesce's version and revision after LLVM's, as every Coalesce tool does.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream& os) {
    os << "Coalesce " << COALESCE_VERSION << " (git " << COALESCE_GIT_REVISION << ")\n";
  });
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "coalesce translation driver"));
}
