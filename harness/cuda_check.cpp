// CudaError construction (see cuda_check.hpp).
#include "cuda_check.hpp"

namespace coalesce {

bool CudaError::sticky() const {
  switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line,
                      const std::string& context) {
  std::string what = std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code) +
                     " (" + call + " at " + file + ":" + std::to_string(line) + ")";
  if (!context.empty()) what += " while running " + context;
  throw CudaError(code, what);
}

}  // namespace coalesce
