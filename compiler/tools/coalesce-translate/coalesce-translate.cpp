//===- coalesce-translate.cpp - coalesce IR to CUDA C++ ---------------------===//
// mlir-translate with the coalesce translations: --mlir-to-cuda (kernels, for NVRTC) and
// --mlir-to-cuda-host (kernels and the runtime entry points that launch them, for nvcc).
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

#include "Coalesce/CudaEmitter.h"

int main(int argc, char** argv) {
  mlir::coalesce::registerCudaTranslations();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "coalesce translation driver"));
}
