//===- LibraryNames.cpp - names of the runtime library's entry points -------===//
#include "Coalesce/LibraryNames.h"

namespace coalesce::compiler {

std::string unfused_entry(std::string_view op, Dtype dtype) {
  return "coalesce_" + std::string(op) + "_" + std::string(to_string(dtype));
}

std::string fused_entry(Dtype dtype, Epilogue epilogue) {
  return "coalesce_fused_matmul_" + std::string(to_string(dtype)) + "_" +
         std::string(to_string(epilogue));
}

std::string fused_entry(const Config& config, Dtype dtype, Epilogue epilogue) {
  return "coalesce_fused_matmul_" + config_name(config, dtype, epilogue);
}

std::string alloc_entry(int rank, Dtype dtype) {
  return "coalesce_alloc_" + std::to_string(rank) + "d_" + std::string(to_string(dtype));
}

std::string free_entry(int rank, Dtype dtype) {
  return "coalesce_free_" + std::to_string(rank) + "d_" + std::string(to_string(dtype));
}

}  // namespace coalesce::compiler
