//===- coalesce-translate.cpp - coalesce IR to CUDA C++ ---------------------===//
// mlir-translate with the coalesce translations: --mlir-to-cuda (kernels, for NVRTC),
// --mlir-to-cuda-host (the C++ host unit: the runtime entry points and the kernels' cubins,
// compiled now by NVRTC) and --mlir-to-cuda-host-entries (the entry points alone).
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include "Coalesce/CudaEmitter.h"
#include "coalesce/version.h"
#include "common/OutputGuard.h"

namespace {

// mlirTranslateMain parses its input and -o options itself and does not expose them, so they are
// read here as LLVM's parser takes them: `-o X`, `-o=X` or `--o=X`; the positional input is any
// other word not starting with '-' (every other option of the driver takes its value after '=').
std::pair<std::vector<coalesce::tools::ReadFile>, std::string> input_and_output(int argc, char** argv) {
  std::vector<coalesce::tools::ReadFile> inputs;
  std::string output;
  bool options_end = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!options_end && arg == "--") {
      options_end = true;
    } else if (!options_end && (arg == "-o" || arg == "--o") && i + 1 < argc) {
      output = argv[++i];
    } else if (!options_end && (arg.starts_with("-o=") || arg.starts_with("--o="))) {
      output = std::string(arg.substr(arg.find('=') + 1));
    } else if (options_end || !arg.starts_with("-")) {
      inputs.push_back({std::string(arg), "the input"});
    }
  }
  return {inputs, output};
}

}  // namespace

int main(int argc, char** argv) {
  mlir::coalesce::registerCudaTranslations();
  // --version names Coalesce's version and revision after LLVM's, as every Coalesce tool does.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream& os) {
    os << "Coalesce " << COALESCE_VERSION << " (git " << COALESCE_GIT_REVISION << ")\n";
  });
  auto [inputs, output] = input_and_output(argc, argv);
  if (coalesce::tools::output_is_an_input("coalesce-translate", output, inputs)) return 1;
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "coalesce translation driver"));
}
